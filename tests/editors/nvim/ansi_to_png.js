// Renders tmux captures (`capture-pane -e`: text with SGR colour codes) as
// PNGs through Debian's Chromium: a <pre> grid in DejaVu Sans Mono, the
// terminal's default colours dark. For screenshot.sh.
//   node ansi_to_png.js COLS ROWS OUT_DIR CAPTURE.ansi...  -> OUT_DIR/nvim-<name>.png
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const base16 = ['#1e1e1e', '#cd3131', '#0dbc79', '#e5e510', '#2472c8', '#bc3fbc', '#11a8cd', '#e5e5e5',
  '#666666', '#f14c4c', '#23d18b', '#f5f543', '#3b8eea', '#d670d6', '#29b8db', '#ffffff'];
function color256(n) {
  if (n < 16) return base16[n];
  if (n < 232) {
    const v = [0, 95, 135, 175, 215, 255];
    n -= 16;
    return `rgb(${v[Math.floor(n / 36)]},${v[Math.floor(n / 6) % 6]},${v[n % 6]})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g},${g},${g})`;
}
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function toHtml(text) {
  let st = { fg: null, bg: null, bold: false, italic: false, underline: false, reverse: false };
  let html = '';
  let open = false;
  const span = () => {
    if (open) html += '</span>';
    let fg = st.fg, bg = st.bg;
    if (st.reverse) [fg, bg] = [bg || '#1e1e1e', fg || '#d4d4d4'];
    const css = [fg && `color:${fg}`, bg && `background:${bg}`, st.bold && 'font-weight:bold',
      st.italic && 'font-style:italic', st.underline && 'text-decoration:underline'].filter(Boolean).join(';');
    html += `<span style="${css}">`;
    open = true;
  };
  span();
  const re = /\x1b\[([0-9;]*)m/g;
  let last = 0, m;
  while ((m = re.exec(text))) {
    html += esc(text.slice(last, m.index));
    last = re.lastIndex;
    const codes = m[1] === '' ? [0] : m[1].split(';').map(Number);
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i];
      if (c === 0) st = { fg: null, bg: null, bold: false, italic: false, underline: false, reverse: false };
      else if (c === 1) st.bold = true;
      else if (c === 3) st.italic = true;
      else if (c === 4) st.underline = true;
      else if (c === 7) st.reverse = true;
      else if (c === 22) st.bold = false;
      else if (c === 23) st.italic = false;
      else if (c === 24) st.underline = false;
      else if (c === 27) st.reverse = false;
      else if (c >= 30 && c <= 37) st.fg = base16[c - 30];
      else if (c >= 90 && c <= 97) st.fg = base16[c - 90 + 8];
      else if (c >= 40 && c <= 47) st.bg = base16[c - 40];
      else if (c >= 100 && c <= 107) st.bg = base16[c - 100 + 8];
      else if (c === 39) st.fg = null;
      else if (c === 49) st.bg = null;
      else if ((c === 38 || c === 48) && codes[i + 1] === 5) {
        st[c === 38 ? 'fg' : 'bg'] = color256(codes[i + 2]);
        i += 2;
      } else if ((c === 38 || c === 48) && codes[i + 1] === 2) {
        st[c === 38 ? 'fg' : 'bg'] = `rgb(${codes[i + 2]},${codes[i + 3]},${codes[i + 4]})`;
        i += 4;
      }
    }
    span();
  }
  html += esc(text.slice(last)) + '</span>';
  return html;
}

async function main() {
  const [cols, rows, out, ...captures] = process.argv.slice(2);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 100, height: 100 }, deviceScaleFactor: 1 });
  for (const file of captures) {
    const body = toHtml(fs.readFileSync(file, 'utf8').replace(/\n$/, ''));
    await page.setContent(`<html><body style="margin:0;background:#1e1e1e"><pre id="t" style="margin:0;padding:8px;` +
      `font:14px/17px 'DejaVu Sans Mono',monospace;color:#d4d4d4;background:#1e1e1e;width:${cols}ch">${body}</pre></body></html>`);
    const box = await page.locator('#t').boundingBox();
    await page.setViewportSize({ width: Math.ceil(box.width), height: Math.ceil(box.height) });
    const name = path.basename(file, '.ansi');
    await page.locator('#t').screenshot({ path: path.join(out, `nvim-${name}.png`) });
  }
  await browser.close();
}
main().catch((e) => { console.error(`FAIL ${e.message}`); process.exit(1); });
