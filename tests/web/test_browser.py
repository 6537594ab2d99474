"""The web view in a real headless browser (Debian's Chromium, driven by Playwright) against the real
``catcode memory serve``: load the page, search, open a change's diff, revert it behind its confirmation, and see
the deleted memory come back — while a memory full of markup shows as text and never runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import start_server, stop_server
from web_helpers import XSS

from catcode.memory.runtime import MemoryRuntime


def test_search_diff_and_revert_bring_a_memory_back(runtime: MemoryRuntime, chromium: Any) -> None:
    from playwright.sync_api import expect  # the chromium fixture skipped already when Playwright is missing

    runtime.store.delete("project-api-style", why="test")
    served = start_server(Path.cwd())
    page = chromium.new_page()
    try:
        page.goto(served.url)
        page.locator("body[data-ready='1']").wait_for(state="attached")
        # memories with their scope badges; the markup memory is text
        vim = page.locator("#memory-list li[data-name='user-prefers-vim']")
        assert vim.locator(".badge").inner_text() == "user"
        markup = page.locator("#memory-list li[data-name='markup-test']")
        assert markup.locator(".badge").inner_text() == "project"
        assert markup.locator(".desc").inner_text() == XSS
        assert page.locator("#memory-list li[data-name='project-api-style']").count() == 0
        markup.locator("button").click()
        expect(page.locator("#detail-title")).to_have_text("markup-test")
        assert page.locator("#detail-body").inner_text() == f"look: {XSS} & more"

        # search
        page.fill("#search", "vim")
        page.press("#search", "Enter")
        first = page.locator("#results li.hit").first
        first.wait_for()
        assert "memory user-prefers-vim" in first.inner_text()

        # the history: open the deletion's diff
        deletion = page.locator("#timeline li.change", has_text="test: delete project-api-style")
        deletion.locator(".show-diff").click()
        expect(page.locator("#detail-body .del", has_text="-plural nouns")).to_have_count(1)
        expect(page.locator("#detail-title")).to_have_text(f"Change {runtime.git.log(1)[0].short_sha}")

        # revert, behind a confirmation: cancelling changes nothing, confirming brings the memory back
        deletion.locator(".revert").click()
        assert page.locator("#confirm").is_visible()
        assert "test: delete project-api-style" in page.locator("#confirm-text").inner_text()
        page.click("#confirm-no")
        assert not page.locator("#confirm").is_visible()
        deletion.locator(".revert").click()
        page.click("#confirm-yes")
        page.locator("#memory-list li[data-name='project-api-style']").wait_for()
        assert page.locator("#status").inner_text().startswith("Undid ")
        assert "restored: project-api-style" in page.locator("#status").inner_text()
        assert runtime.store.get("project-api-style") is not None
        assert page.locator("#timeline li.change").first.inner_text().count("revert: undo") == 1

        assert page.evaluate("window.pwned") is None  # no markup from memory text ever ran
    finally:
        page.close()
        stop_server(served)


def test_a_one_time_code_opens_the_page_with_an_http_only_cookie(
    runtime: MemoryRuntime, chromium: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """What ``--open`` hands the browser (here a script that writes it down): a private page that sends it on with
    the code; the code works once, and the page then runs on an HttpOnly, SameSite=Strict cookie alone — no token in
    its address."""
    import time

    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {opened}\n')
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(browser))
    served = start_server(Path.cwd(), "--open")
    context = chromium.new_context()
    try:
        deadline = time.monotonic() + 30
        while not (opened.exists() and opened.read_text()):
            assert time.monotonic() < deadline, "the browser was never asked to open the page"
            time.sleep(0.05)
        page = context.new_page()
        page.goto(opened.read_text())
        page.locator("body[data-ready='1']").wait_for(state="attached")
        page.locator("#memory-list li[data-name='user-prefers-vim']").wait_for()
        assert page.url == f"http://127.0.0.1:{served.port}/"  # the code is gone from the address bar
        (cookie,) = context.cookies()
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and served.token not in cookie["value"]
        assert page.evaluate("document.cookie") == ""  # out of reach of any script
        second = context.new_page()
        second.goto(opened.read_text())  # the same page again: its code was used
        second.wait_for_url(f"http://127.0.0.1:{served.port}/?code=*")
        assert "This one-time link was already used" in second.content()  # exchanged once
    finally:
        context.close()
        stop_server(served)


def test_the_page_works_420_pixels_wide(runtime: MemoryRuntime, chromium: Any, tmp_path: Path) -> None:
    """A phone-sized window: one column, nothing wider than the screen, what is picked brought into view, the
    confirmation inside the screen."""
    from playwright.sync_api import expect

    runtime.store.delete("project-api-style", why="test")
    served = start_server(Path.cwd())
    page = chromium.new_page(viewport={"width": 420, "height": 780})
    try:
        page.goto(served.url)
        page.locator("body[data-ready='1']").wait_for(state="attached")
        assert page.evaluate("document.documentElement.scrollWidth") <= 420  # no sideways scrolling
        boxes = [page.locator(f"section:nth-of-type({n})").bounding_box() for n in (1, 2, 3)]
        assert all(box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 420 for box in boxes)
        assert boxes[0]["y"] < boxes[1]["y"] < boxes[2]["y"]  # stacked: memories, detail, history
        for item in page.locator("#memory-list li, #timeline li").all():
            box = item.bounding_box()
            assert box is not None and box["x"] + box["width"] <= 420

        page.locator("#memory-list li[data-name='user-prefers-vim'] button").click()
        expect(page.locator("#detail-title")).to_have_text("user-prefers-vim")
        expect(page.locator("#detail-title")).to_be_in_viewport()
        page.screenshot(path=str(tmp_path / "narrow.png"), full_page=True)

        deletion = page.locator("#timeline li.change", has_text="test: delete project-api-style")
        deletion.locator(".revert").click()
        dialog = page.locator("#confirm").bounding_box()
        assert dialog is not None and dialog["x"] >= 0 and dialog["x"] + dialog["width"] <= 420
        page.click("#confirm-yes")
        page.locator("#memory-list li[data-name='project-api-style']").wait_for()
        status = page.locator("#status").bounding_box()
        assert status is not None and status["x"] >= 0 and status["x"] + status["width"] <= 420
        assert page.evaluate("document.documentElement.scrollWidth") <= 420
    finally:
        page.close()
        stop_server(served)
