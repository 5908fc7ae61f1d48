"""View state lives in TensorBoard's own URL, so a copied link reopens it.

The plugin writes its state into TensorBoard's hash as ``tbmf.<key>``
parameters (``#tb_multiframework&tbmf.view=compare&...``); these tests check
that TensorBoard keeps them through a reload, a tab switch and a fresh page.
"""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from playwright.sync_api import Frame

pytestmark = pytest.mark.e2e

_ROW = "tr.tbmf-run-row"


def _hash_params(url: str) -> dict[str, str]:
    """TensorBoard's hash as a dict: ``#tab&k=v&...`` (tf_storage format)."""
    fragment = url.split("#", 1)[1] if "#" in url else ""
    params = {}
    for item in fragment.split("&"):
        if "=" in item:
            key, value = item.split("=", 1)
            params[unquote(key)] = unquote(value)
        else:
            params["__tab__"] = item
    return params


def _shown_runs(frame: Frame) -> list[str]:
    return frame.eval_on_selector_all(
        _ROW, "rows => rows.map(r => r.dataset.run)"
    )


def _set_up_state(frame: Frame) -> None:
    """Filter to Paddle runs, deselect one, sort by points, open Compare."""
    frame.wait_for_selector(_ROW)
    frame.fill(".tbmf-search__input", "paddle")
    frame.wait_for_function(
        "document.querySelectorAll('tr.tbmf-run-row').length === 3"
    )
    frame.uncheck('tr[data-run="paddle_vdl"] input[type=checkbox]')
    frame.click('th[data-col="points"] button')
    frame.click('.tbmf-tab[data-view="compare"]')
    frame.wait_for_selector('.tbmf-view[data-view="compare"]')


def _assert_state(frame: Frame, all_runs: set[str]) -> None:
    """The state of _set_up_state, seen in the UI."""
    frame.wait_for_selector('.tbmf-view[data-view="compare"]')
    assert frame.get_attribute(".tbmf-tab.is-active", "data-view") == "compare"
    chips = frame.eval_on_selector_all(
        ".tbmf-run-chip", "chips => chips.map(c => c.dataset.run)"
    )
    assert set(chips) == all_runs - {"paddle_vdl"}
    frame.click('.tbmf-tab[data-view="runs"]')
    frame.wait_for_selector(_ROW)
    assert frame.input_value(".tbmf-search__input") == "paddle"
    assert set(_shown_runs(frame)) == {
        "paddle_vdl",
        "paddle_hapi",
        "paddle_tbx",
    }
    assert not frame.is_checked(
        'tr[data-run="paddle_vdl"] input[type=checkbox]'
    )
    assert frame.is_checked('tr[data-run="paddle_tbx"] input[type=checkbox]')
    assert (
        frame.get_attribute('th[data-col="points"]', "aria-sort")
        == "descending"
    )


def test_state_survives_reload_and_new_page(
    tb_server, tb_page, new_page, open_tab, plugin_frame
) -> None:
    server = tb_server()
    all_runs = {run["run"] for run in server.get_json("runs")["runs"]}
    frame = open_tab(tb_page, server)
    _set_up_state(frame)

    page = tb_page.page
    params = _hash_params(page.url)
    assert params["__tab__"] == "tb_multiframework"
    assert params["tbmf.view"] == "compare"
    assert params["tbmf.q"] == "paddle"
    assert params["tbmf.sort"] == "-points"
    assert set(params["tbmf.sel"].split(",")) == all_runs - {"paddle_vdl"}
    # The iframe mirrors the state in its own hash.
    assert "view=compare" in frame.url

    # Reloading TensorBoard brings the same view back.
    url = page.url
    page.reload()
    assert page.url == url
    _assert_state(plugin_frame(tb_page), all_runs)

    # So does the link in a fresh browser context (a colleague's browser).
    other = new_page()
    other.page.goto(url)
    _assert_state(plugin_frame(other), all_runs)


def test_state_survives_tensorboard_tab_switch(
    tb_server, tb_page, open_tab, plugin_frame
) -> None:
    server = tb_server()
    all_runs = {run["run"] for run in server.get_json("runs")["runs"]}
    frame = open_tab(tb_page, server)
    _set_up_state(frame)
    page = tb_page.page
    page.locator('.plugin-name[data-plugin-id="scalars"]').click()
    page.wait_for_function("location.hash.startsWith('#scalars')")
    # TensorBoard rewrites its hash but keeps our parameters.
    assert _hash_params(page.url)["tbmf.view"] == "compare"
    page.locator('.plugin-name[data-plugin-id="tb_multiframework"]').click()
    _assert_state(plugin_frame(tb_page), all_runs)


def test_copy_link_copies_the_tensorboard_url(
    tb_server, tb_page, open_tab
) -> None:
    server = tb_server()
    tb_page.context.grant_permissions(
        ["clipboard-read", "clipboard-write"], origin=server.base_url
    )
    frame = open_tab(tb_page, server)
    _set_up_state(frame)
    frame.click(".tbmf-copy-link")
    frame.wait_for_selector(".tbmf-toast:not([hidden])")
    assert frame.text_content(".tbmf-toast") == "Link copied"
    copied = tb_page.page.evaluate("navigator.clipboard.readText()")
    assert copied == tb_page.page.url
    assert _hash_params(copied)["tbmf.view"] == "compare"


def _panel_query(frame: Frame) -> dict[str, str]:
    """The arguments of the answer the Compare panel drew, once idle."""
    frame.wait_for_function(
        """() => {
          const p = document.querySelector('.tbmf-cmp-panel');
          return p && p.dataset.state === 'ready'
            && !p.classList.contains('is-loading') && p.dataset.query;
        }"""
    )
    query = frame.get_attribute(".tbmf-cmp-panel", "data-query") or ""
    return dict(
        (unquote(k), unquote(v))
        for k, v in (
            item.split("=", 1) for item in query.lstrip("?").split("&") if item
        )
    )


def _wait_query(frame: Frame, **expected: str) -> dict[str, str]:
    frame.wait_for_function(
        """expected => {
          const p = document.querySelector('.tbmf-cmp-panel');
          if (!p || p.classList.contains('is-loading')) return false;
          const q = new URLSearchParams(p.dataset.query || '');
          return Object.entries(expected).every(([k, v]) => q.get(k) === v);
        }""",
        arg=expected,
    )
    return _panel_query(frame)


def test_group_center_and_attempts_have_their_own_keys(
    tb_server, tb_page, open_tab
) -> None:
    """`ca` meant both "all attempts" and the group center: choosing the
    median and then the superseded attempts dropped the median (and an
    old link's `ca=median` turned into attempts). Each has its own key;
    an old link's `ca=median` still opens the median and survives."""
    server = tb_server()
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare&tbmf.cg=framework",
    )
    _wait_query(frame, groupBy="framework", aggregate="mean")
    frame.select_option('[data-control="aggregate"]', "median")
    _wait_query(frame, aggregate="median")
    frame.click('[data-control="more"] summary')
    frame.click('[data-control="attempts"]')
    query = _wait_query(frame, attempts="all")
    assert query["aggregate"] == "median"
    params = _hash_params(tb_page.page.url)
    assert params["tbmf.ca"] == "all"
    assert params["tbmf.cgc"] == "median"

    # An old link: `ca=median` is the median, and stays it once the
    # attempts toggle writes `ca`.
    tb_page.page.goto("about:blank")
    frame = open_tab(
        tb_page,
        server,
        suffix="#tb_multiframework&tbmf.view=compare&tbmf.cg=framework"
        "&tbmf.ca=median",
    )
    query = _wait_query(frame, groupBy="framework", aggregate="median")
    assert "attempts" not in query
    frame.click('[data-control="more"] summary')
    frame.click('[data-control="attempts"]')
    query = _wait_query(frame, attempts="all")
    assert query["aggregate"] == "median"
