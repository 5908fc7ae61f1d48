"""The message catalogs: languages, t(), and `GET i18n` serving them.

Expected texts are read from the JSON files with `json` (not through the
module under test); the route is called through TensorBoard's WSGI app.
"""

import json
from pathlib import Path

import pytest

from tb_multiframework import i18n
from tests.conftest import make_client

CATALOGS = (
    Path(__file__).resolve().parents[2]
    / "tb_multiframework"
    / "i18n"
    / "catalogs"
)
BASE = "/data/plugin/tb_multiframework"


def _raw(lang):
    return json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "value, expected",
    [
        ("zh_CN.UTF-8", "zh-CN"),
        ("zh_TW.UTF-8", "zh-CN"),
        ("zh-Hans-CN", "zh-CN"),
        ("zh", "zh-CN"),
        ("en_US.UTF-8", "en"),
        ("C", "en"),
        ("C.UTF-8", "en"),
        ("POSIX", "en"),
        ("fr_FR.UTF-8", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_lang(value, expected):
    assert i18n.normalize_lang(value) == expected


def test_lang_from_environment_follows_posix_precedence():
    assert i18n.lang_from_environment({"LANG": "zh_CN.UTF-8"}) == "zh-CN"
    # LC_ALL wins over LANG; an unsupported locale is English.
    assert (
        i18n.lang_from_environment({"LC_ALL": "en_US", "LANG": "zh_CN"}) == "en"
    )
    assert i18n.lang_from_environment({"LANG": "de_DE.UTF-8"}) == "en"
    assert i18n.lang_from_environment({}) == "en"


def test_t_fills_placeholders_in_each_language():
    en, zh = _raw("en"), _raw("zh-CN")
    key = "shell.copyThisLink"
    assert "{url}" in en[key] and "{url}" in zh[key]
    assert i18n.t(key, {"url": "http://x/#a"}) == en[key].replace(
        "{url}", "http://x/#a"
    )
    assert i18n.t(key, {"url": "u"}, lang="zh-CN") == zh[key].replace(
        "{url}", "u"
    )
    # A missing parameter shows as written; an unknown key is itself.
    assert i18n.t(key, lang="zh-CN") == zh[key]
    assert i18n.t("no.such.key") == "no.such.key"
    assert i18n.fill("{a} and {b}", {"a": 1}) == "1 and {b}"
    with pytest.raises(ValueError, match="'fr'"):
        i18n.catalog("fr")


def test_i18n_route_serves_each_catalog(tmp_path):
    client, _ = make_client(str(tmp_path))
    for lang in ("en", "zh-CN"):
        response = client.get(f"{BASE}/i18n?lang={lang}")
        assert response.status_code == 200
        assert response.mimetype == "application/json"
        body = json.loads(response.get_data(as_text=True))
        assert body["lang"] == lang
        assert body["languages"] == ["en", "zh-CN"]
        assert body["messages"] == {**_raw("en"), **_raw(lang)}
    default = json.loads(client.get(f"{BASE}/i18n").get_data(as_text=True))
    assert default["lang"] == "en"
    bad = client.get(f"{BASE}/i18n?lang=fr")
    assert bad.status_code == 400
    assert "'fr'" in json.loads(bad.get_data(as_text=True))["error"]
