"""placeholder"""


def register(commands):
    commands.add_parser("anomalies", help="(needs the anomalies api)")
