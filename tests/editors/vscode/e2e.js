// End-to-end test of the warplens VS Code extension in code-server, driven by
// playwright-core in Debian's Chromium. Follows one scenario file (see
// tests/editors/README.md): the status bar reaches "warplens: ready", the
// squiggle and the Problems entry appear, the hover shows warplens' text, the
// quick fix applies and the diagnostic clears. Every wait also watches the
// status bar, so a server that is missing, fails to start or crashes ends the
// test at once with the status text, not after the timeouts.
//
//   node e2e.js URL SCENARIO_JSON WORKSPACE_DIR ARTIFACT_PREFIX
// Writes ARTIFACT_PREFIX-{hover,preview,final}.png (final also on failure).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [url, scenarioPath, workspace, artifactPrefix] = process.argv.slice(2);
const scenario = JSON.parse(fs.readFileSync(scenarioPath, 'utf8'));
const timeoutMs = Number(process.env.E2E_TIMEOUT_MS || 60000);
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

const log = (msg) => console.log(msg);
const squiggleClass = { 1: '.squiggly-error', 2: '.squiggly-warning', 3: '.squiggly-info', 4: '.squiggly-hint' };
const failedStates = ['server not found', 'failed to start', 'crashed', 'stopped', 'restarting'];
const normalize = (s) => (s || '').replace(/\u00a0/g, ' ');
const squash = (s) => normalize(s).replace(/\s+/g, ' ').trim();

class TestFailure extends Error {}

/** 0-based position of `anchor` (+ offset) in the scenario file. */
function locate(anchor, offset = 0) {
  const lines = fs.readFileSync(path.join(workspace, scenario.file), 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const col = lines[i].indexOf(anchor);
    if (col >= 0) return { line: i, character: col + offset };
  }
  throw new TestFailure(`scenario anchor "${anchor}" is not in ${scenario.file}`);
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'warplens-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    viewport: { width: 1400, height: 850 },
  });
  const page = context.pages()[0] || await context.newPage();
  const statusItem = page.locator('.statusbar-item', { hasText: /^\s*warplens: / }).first();

  async function statusText() {
    return (await statusItem.count()) ? squash(await statusItem.innerText()) : '';
  }

  // Polls `probe` (returns a truthy value when done) while watching for a dead server.
  async function waitFor(what, probe, ms = timeoutMs) {
    const deadline = Date.now() + ms;
    for (;;) {
      const status = await statusText();
      const failed = failedStates.find((s) => status.startsWith(`warplens: ${s}`));
      if (failed) {
        const tooltip = await statusItem.getAttribute('aria-label').catch(() => null);
        throw new TestFailure(`the status bar says "${status}" while waiting for ${what}` +
          (tooltip ? ` (${squash(tooltip)})` : ''));
      }
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) throw new TestFailure(`timed out after ${ms} ms waiting for ${what}; status bar: "${status}"`);
      await page.waitForTimeout(200);
    }
  }

  async function editorText() {
    return normalize(await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText());
  }

  async function goTo(position) {
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+G');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 10000 });
    await page.keyboard.type(`${position.line + 1}:${position.character + 1}`);
    await page.keyboard.press('Enter');
  }

  try {
    await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`, { timeout: timeoutMs });
    await page.waitForSelector('div.monaco-workbench', { timeout: timeoutMs });
    log('workbench loaded');

    // Open the file from the explorer (keyboard quick-open can land in other panels).
    const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: scenario.file });
    await row.waitFor({ timeout: timeoutMs });
    await row.click();
    await page.waitForSelector(`.tab.active[aria-label*="${scenario.file}"]`, { timeout: timeoutMs });
    log(`opened ${scenario.file}`);

    await waitFor('the warplens status-bar item', async () => (await statusItem.count()) > 0);
    const ready = await waitFor('"warplens: ready" in the status bar',
      async () => ((await statusText()).startsWith('warplens: ready') ? statusText() : null));
    log(`status: ${ready}`);

    // Squiggle and Problems entry.
    const want = scenario.diagnostic;
    const severityClass = squiggleClass[want.severity || 1];
    await waitFor(`a ${severityClass} squiggle`, async () => (await page.locator(severityClass).count()) > 0);
    await page.keyboard.press('Control+Shift+M');
    // Marker rows (not the file rows above them) whose text has the expected message.
    const problemRow = page.locator('.markers-panel .monaco-list-row', {
      has: page.locator('.marker-message-details-container'),
      hasText: new RegExp(want.message_contains.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'),
    }).first();
    await waitFor(`a Problems entry containing "${want.message_contains}"`, async () => (await problemRow.count()) > 0);
    const problem = squash(await problemRow.innerText());
    for (const part of [want.code, want.source].filter(Boolean)) {
      if (!problem.includes(part)) throw new TestFailure(`the Problems entry lacks "${part}": ${problem}`);
    }
    log(`problem: ${problem}`);

    // Hover, opened from the keyboard at the scenario's position.
    const hoverAt = locate(scenario.hover.anchor, scenario.hover.offset);
    await goTo(hoverAt);
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = await waitFor(`a hover containing ${JSON.stringify(scenario.hover.contains)}`, async () => {
      const contents = page.locator('.monaco-hover-content');
      if ((await contents.count()) === 0) return null;
      const text = squash(await contents.allInnerTexts().then((t) => t.join(' ')));
      return scenario.hover.contains.every((s) => text.toLowerCase().includes(s.toLowerCase())) ? text : null;
    }, 20000);
    // One message per hover: VS Code puts the diagnostic above the hover
    // itself, so the server's part (.markdown-hover) must not repeat it
    // (scenario hover.not_contains), nor show any table twice.
    const serverPart = squash((await page.locator('.monaco-hover-content .markdown-hover').allInnerTexts()).join(' '));
    for (const s of scenario.hover.not_contains || []) {
      if (serverPart.includes(s)) throw new TestFailure(`the hover repeats "${s}": ${serverPart.slice(0, 400)}`);
    }
    const tables = await page.locator('.monaco-hover-content table').evaluateAll((ts) => ts.map((t) => (t.rows[0] ? t.rows[0].innerText : '')));
    if (new Set(tables).size !== tables.length) throw new TestFailure(`the hover shows a table twice: ${tables.join(' | ')}`);
    log(`hover: ${hover.slice(0, 200)}`);
    await page.screenshot({ path: `${artifactPrefix}-hover.png` });
    await page.keyboard.press('Escape');

    // Diagnostics stay while an edit is re-analysed (clangd's behaviour): an
    // edit above the finding, then the Problems entry is watched until the
    // fresh analysis (nvcc included) has had time to land; it must never go.
    if (scenario.steady) {
      await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
      const before = await editorText();
      await page.keyboard.press('Control+Home');
      await page.keyboard.type(scenario.steady.text.replace(/\n$/, ''));
      await page.keyboard.press('Escape');  // a suggestion widget would take the Enter
      await page.keyboard.press('Enter');
      await waitFor('the inserted line', async () => (await editorText()).split('\n')[0].trim() === scenario.steady.text.trim());
      const deadline = Date.now() + (scenario.steady.watch_ms || 4000);
      let samples = 0;
      while (Date.now() < deadline) {
        if ((await problemRow.count()) === 0) {
          throw new TestFailure(`the Problems entry vanished ${(scenario.steady.watch_ms || 4000) - (deadline - Date.now())} ms after an edit ` +
            '(diagnostics must stay until new ones replace them)');
        }
        samples++;
        await page.waitForTimeout(100);
      }
      const moved = await page.locator('.markers-panel .monaco-list-row', { hasText: `[Ln ${locate(want.anchor).line + 2},` }).count();
      log(`steady: the Problems entry stayed through the edit (${samples} samples)${moved ? ', moved one line down' : ''}`);
      if (!moved) throw new TestFailure('after the edit the Problems entry did not move down with its line');
      // Undo until the text is back: typing under load can leave more undo
      // stops than characters typed in one burst, so the count is not fixed.
      await waitFor('the edit to be undone', async () => {
        if ((await editorText()) === before) return true;
        await page.keyboard.press('Control+Z');
        await page.waitForTimeout(50);
        return (await editorText()) === before;
      });
      await waitFor('the Problems entry after undoing', async () => (await problemRow.count()) > 0);
    }

    // The kernel report view, opened by clicking the kernel's code lens.
    const reportFrame = () => page.frameLocator('iframe.webview.ready').last().frameLocator('iframe#active-frame');
    // The view's text, the charts' labels included (SVG text is not innerText).
    async function reportText() {
      try {
        return normalize(await reportFrame().locator('body').evaluate((b) =>
          `${b.innerText} ${[...b.querySelectorAll('svg text')].map((t) => t.textContent).join(' ')}`, null, { timeout: 1000 }));
      } catch {
        return '';
      }
    }
    if (scenario.report_view) {
      const lens = page.locator('.codelens-decoration a', { hasText: 'regs' }).first();
      await waitFor('the resource-usage code lens', async () => (await lens.count()) > 0);
      log(`code lens: ${squash(await lens.innerText())}`);
      await lens.click();
      const text = await waitFor(`the report view with ${JSON.stringify(scenario.report_view.contains)}`, async () => {
        const t = await reportText();
        return scenario.report_view.contains.every((c) => t.includes(c)) ? t : null;
      }, 30000);
      if ((await reportFrame().locator('svg#occupancy-chart').count()) !== 1) throw new TestFailure('the report view has no occupancy chart');
      log(`report view: ${squash(text).slice(0, 200)}`);
      // The picture with room: side bar and panel hidden for the screenshot, then back.
      await page.keyboard.press('Control+B');
      await page.keyboard.press('Control+J');
      await page.waitForTimeout(500);
      await page.screenshot({ path: `${artifactPrefix}-report.png` });
      await page.keyboard.press('Control+B');
      await page.keyboard.press('Control+J');
      // The view opened beside the source without taking focus; back to the source tab.
      await page.locator('.tab', { hasText: scenario.file }).first().click();
    }

    // An optimize result's before/after bars: run.sh binds warplens.showOptimizeResult,
    // with the result recorded on an H200, to a key.
    if (scenario.optimize_result) {
      await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
      await page.keyboard.press(process.env.E2E_OPTIMIZE_KEY || 'Control+Alt+Shift+F11');
      const result = JSON.parse(fs.readFileSync(path.join(path.dirname(scenarioPath), '..', 'fixtures', scenario.optimize_result.fixture), 'utf8'));
      await waitFor('the report view with the optimize bars', async () => {
        const t = await reportText();
        return scenario.optimize_result.contains.every((c) => t.includes(c)) ? t : null;
      }, 30000);
      const bars = await reportFrame().locator('svg#optimize-chart rect.after').count();
      if (bars !== result.candidates.filter((c) => c.correct && c.after_ms > 0).length)
        throw new TestFailure(`the optimize chart has ${bars} "after" bars for ${result.candidates.length} candidates`);
      log(`optimize bars: ${bars} candidates`);
      await page.keyboard.press('Control+B');
      await page.keyboard.press('Control+J');
      await page.waitForTimeout(500);
      await reportFrame().locator('#optimize-chart').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${artifactPrefix}-optimize.png` });
      await page.keyboard.press('Control+B');
      await page.keyboard.press('Control+J');
      await page.locator('.tab', { hasText: scenario.file }).first().click();
    }

    // "Optimize kernel" without a GPU: its error, shown once (run.sh sets
    // WARPLENS_PROFILE_ASSUME_NO_GPU=1, so this holds on a GPU machine too).
    if (scenario.optimize_error) {
      await goTo(locate(scenario.hover.anchor, scenario.hover.offset));
      await page.keyboard.press('F1');
      await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 10000 });
      await page.keyboard.type('warplens: Optimize kernel at cursor');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Optimize kernel at cursor' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      const errorToasts = page.locator('.notifications-toasts .notification-list-item', { hasText: scenario.optimize_error.contains });
      await waitFor('the optimize error', async () => (await errorToasts.count()) > 0, 60000);
      await page.waitForTimeout(1500);  // a second one (window/showMessage) would be here by now
      const n = await errorToasts.count();
      if (n !== 1) throw new TestFailure(`the optimize error was shown ${n} times`);
      log(`optimize without a GPU: one error: ${squash(await errorToasts.first().innerText()).slice(0, 120)}`);
      await page.keyboard.press('F1');
      await page.keyboard.type('Notifications: Clear All Notifications');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Clear All Notifications' }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      await waitFor('the notifications to clear', async () => (await errorToasts.count()) === 0, 10000);
    }

    // Quick fix: the Problems entry moves the cursor onto the diagnostic, Ctrl+. lists the fixes.
    if (scenario.code_action) {
      await problemRow.click();
      await page.keyboard.press('Enter');
      await page.waitForTimeout(300); // let the editor take focus after the jump
      const wantAction = scenario.code_action;
      await page.keyboard.press('Control+.');
      // Header rows ("Quick Fix") are not actions; pick by keyboard (a pointer block covers the menu).
      const actionRows = page.locator('.action-widget .monaco-list-row.action');
      const offered = await waitFor('the quick-fix menu', async () => {
        const n = await actionRows.count();
        return n > 0 ? actionRows.evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') || r.textContent)) : null;
      }, 20000);
      const matches = (t) => !wantAction.title_contains || t.toLowerCase().includes(wantAction.title_contains.toLowerCase());
      if (!offered.some(matches)) {
        throw new TestFailure(`no quick fix titled like "${wantAction.title_contains}"; offered: ${offered.map(squash).join(' | ')}`);
      }
      for (let i = 0; i <= offered.length; i++) {
        const focused = await page.locator('.action-widget .monaco-list-row.action.focused').getAttribute('aria-label');
        if (focused && matches(focused)) {
          log(`quick fix: ${squash(focused)}`);
          break;
        }
        await page.keyboard.press('ArrowDown');
      }
      await page.keyboard.press('Enter');
      await waitFor(`the editor to contain "${wantAction.after_contains}"`,
        async () => (await editorText()).includes(wantAction.after_contains));
      log('edit applied');

      // The diagnostic clears from the Problems panel.
      await waitFor('the Problems entry to clear after the fix', async () => (await problemRow.count()) === 0);
      log('diagnostic cleared');
    } else {
      log('no code_action in this scenario');
    }

    if (scenario.jobs !== false) {
    // A verified rewrite opens as a diff and applies only on "Apply". The
    // server's code actions call warplens.previewRewrite; here run.sh binds
    // it, with a fixed edit, to a key in the test's keybindings.json.
    await page.keyboard.press('Escape');
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press(process.env.E2E_PREVIEW_KEY || 'Control+Alt+Shift+F9');
    await waitFor('the rewrite diff preview', async () => (await page.locator('.monaco-diff-editor').count()) > 0, 20000);
    const apply = page.locator('.notifications-toasts .monaco-button', { hasText: /^Apply$/ });
    await waitFor('the "Apply" button of the rewrite preview', async () => (await apply.count()) > 0, 20000);
    if ((await editorText()).includes(process.env.E2E_PREVIEW_TEXT)) {
      throw new TestFailure('the document changed before the rewrite was confirmed');
    }
    await page.screenshot({ path: `${artifactPrefix}-preview.png` });
    await apply.first().click();
    await waitFor('the previewed rewrite to apply', async () =>
      (await page.locator('.monaco-diff-editor').count()) === 0
      && (await editorText()).includes(process.env.E2E_PREVIEW_TEXT), 20000);
    log('rewrite preview: diff shown, applied on confirmation');

    // The kernel report (warplens.report), from the command palette.
    if (scenario.report) {
      await page.keyboard.press('F1');
      await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 10000 });
      await page.keyboard.type('warplens: Show file report (JSON)');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Show file report (JSON)' }).first()
        .waitFor({ timeout: 10000 });
      await page.keyboard.press('Enter');
      const report = await waitFor(`a kernel report containing ${JSON.stringify(scenario.report.contains)}`, async () => {
        if ((await page.locator('.tab.active[aria-label*=".report.json"]').count()) === 0) return null;
        const text = await editorText();
        return scenario.report.contains.every((s) => text.includes(s)) ? text : null;
      }, 20000);
      log(`report: ${squash(report).slice(0, 160)}`);
    }
    // A long job: the notification shows the server's progress, and its Cancel button works.
    // run.sh binds warplens.runJob (warplens.debug.sleep, a 60 s job) to a key.
    await page.keyboard.press('Escape');
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press(process.env.E2E_JOB_KEY || 'Control+Alt+Shift+F10');
    const jobToast = page.locator('.notifications-toasts .notification-list-item', { hasText: 'warplens: test job' });
    const progressText = await waitFor('a job notification showing the server\'s progress', async () => {
      if ((await jobToast.count()) === 0) return null;
      const text = squash(await jobToast.first().innerText());
      return /step \d+ of \d+/.test(text) ? text : null;
    }, 20000);
    log(`job: ${progressText}`);
    await jobToast.first().locator('.monaco-button', { hasText: /^Cancel$/ }).click();
    const cancelledToast = page.locator('.notifications-toasts .notification-list-item', { hasText: 'test job: cancelled' });
    await waitFor('the job to be cancelled', async () => (await cancelledToast.count()) > 0, 20000);
    if ((await page.locator('.notifications-toasts .notification-list-item', { hasText: 'test job: done' }).count()) > 0) {
      throw new TestFailure('the job ran to completion despite Cancel');
    }
    log('job cancelled from the notification');
    }

    // Warnings and errors shown to the user (e.g. a rejected setting) fail the test.
    const problems = await page.locator('.notifications-toasts .notification-list-item').evaluateAll((items) =>
      items.filter((i) => i.querySelector('.codicon-warning, .codicon-error'))
        .map((i) => (i.querySelector('.notification-list-item-message') || i).textContent));
    if (problems.length > 0) throw new TestFailure(`warning/error notifications shown: ${problems.join(' | ')}`);
    log(`final status: ${await statusText()}`);
  } finally {
    await page.screenshot({ path: `${artifactPrefix}-final.png` }).catch(() => undefined);
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then(() => {
  log(`PASS ${path.basename(scenarioPath, '.json')}`);
}, (e) => {
  // Playwright's errors carry a long call log; its first line says what failed.
  const message = e instanceof TestFailure ? e.message : String((e && e.message) || e).split('\n')[0];
  console.error(`FAIL ${message}`);
  process.exit(1);
});
