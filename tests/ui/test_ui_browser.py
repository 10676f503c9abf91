"""The page in a real browser: Playwright driving Debian's Chromium, headless (MEMDOCK_IT_UI=1)."""

import importlib.util
import os
import re
from urllib.parse import quote

import pytest
from ui_helpers import HOSTILE_THREAD, TOKEN, ui_server

from memdock.threads import thread_id_for

CHROMIUM = os.environ.get("MEMDOCK_CHROMIUM", "/usr/bin/chromium")
ENTRY = "entry:21bd200e6444fc8d"


def _why_not() -> str | None:
    if os.environ.get("MEMDOCK_IT_UI") != "1":
        return "browser tests: set MEMDOCK_IT_UI=1 (needs playwright and Debian's chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed: pip install playwright"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM}: apt-get install chromium (or set MEMDOCK_CHROMIUM)"
    return None


pytestmark = [pytest.mark.integration_ui, pytest.mark.skipif(_why_not() is not None, reason=_why_not() or "")]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    tab.pwned_dialogs = []
    tab.on("dialog", lambda d: (tab.pwned_dialogs.append(d.message), d.dismiss()))
    yield tab
    context.close()


def test_search_follow_a_hit_to_its_thread_forget_it_and_see_it_gone(own_store, page):
    from playwright.sync_api import expect

    with ui_server("--data-dir", str(own_store), "--allow-writes") as base:
        page.goto(base)
        expect(page.locator("table.threads")).to_contain_text("incident-cache")
        page.keyboard.press("/")  # the little script: "/" focuses the search box
        page.keyboard.type("stampede thundering")
        page.keyboard.press("Enter")
        first = page.locator("article.hit").first
        expect(first.locator("mark").first).to_have_text(re.compile("stampede|thundering", re.I))
        expect(first.locator(".provenance")).to_contain_text(ENTRY)
        first.locator(".provenance a", has_text="incident-cache").click()
        expect(page).to_have_url(re.compile(r"/ui/thread\?id=thread%3Aincident-cache"))
        entry = page.locator(f"article[id='{ENTRY}']")
        expect(entry).to_contain_text("thundering herd")
        entry.get_by_role("link", name="forget…").click()
        expect(page.locator("section.confirm")).to_contain_text("thundering herd")
        page.get_by_role("button", name="Forget it").click()
        expect(page.locator(".notice")).to_contain_text(f"Forgot {ENTRY}")
        expect(page.locator(f"article[id='{ENTRY}']")).to_have_count(0)
        expect(page.locator("article.entry")).to_have_count(1)
        page.fill("header.top input[type=search]", "stampede thundering")
        page.keyboard.press("Enter")
        expect(page.locator(".modeline")).to_be_visible()
        assert ENTRY not in page.content()


def test_a_wrong_token_gets_401_and_the_right_one_opens_the_page(shared_store, page):
    from playwright.sync_api import expect

    with ui_server("--data-dir", str(shared_store), env={"MEMDOCK_MCP_TOKEN": TOKEN}) as base:
        assert page.goto(base).status == 401
        page.fill("input[name=token]", "not-the-token")
        with page.expect_response(re.compile(r"/ui/login$")) as answer:
            page.get_by_role("button", name="Open").click()
        assert answer.value.status == 401
        expect(page.locator(".notice.bad")).to_contain_text("wrong token")
        page.fill("input[name=token]", TOKEN)
        page.get_by_role("button", name="Open").click()
        expect(page.locator("table.threads")).to_contain_text("incident-cache")


def test_markup_in_the_memory_renders_as_text(shared_store, page):
    from playwright.sync_api import expect

    hostile = quote(thread_id_for(HOSTILE_THREAD))
    with ui_server("--data-dir", str(shared_store)) as base:
        page.goto(base)
        expect(page.locator("table.threads")).to_contain_text("<script>window.__pwned = 3</script>thread")
        page.goto(f"{base}thread?id={hostile}")
        entry = page.locator("article.entry").first
        expect(entry.locator(".text")).to_contain_text(
            '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
        )
        expect(entry.locator("h3")).to_contain_text("<i>title</i><script>")
        expect(entry.locator(".author")).to_have_text("<b>eve</b><script>window.__pwned = 4</script>")
        page.goto(f"{base}search?q=zebra")
        expect(page.locator("article.hit mark").first).to_have_text("zebra")
        entry_id = page.locator("article.hit .provenance a").nth(1).inner_text()
        page.goto(f"{base}node?id={quote(entry_id)}")
        expect(page.locator("h1")).to_contain_text("<i>title</i>")
        assert page.evaluate("window.__pwned") is None and page.pwned_dialogs == []
        assert page.locator("main img, main script").count() == 0


def test_browsing_works_without_javascript(shared_store, browser):
    from playwright.sync_api import expect

    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        with ui_server("--data-dir", str(shared_store)) as base:
            page.goto(base)
            page.get_by_role("link", name="release-planning").click()
            expect(page.locator("article.entry")).to_have_count(3)
            page.fill("header.top input[type=search]", "migration")
            page.get_by_role("button", name="Search").first.click()
            expect(page.locator("article.hit").first).to_be_visible()
            page.locator("article.hit .provenance a").nth(1).click()
            expect(page.locator("svg.graph")).to_be_visible()
    finally:
        context.close()
