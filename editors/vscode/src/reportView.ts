// The kernel report view's HTML: pictures drawn from the plain data the
// server sends (warplens.kernelView, and warplens.optimize's candidates).
// Pure functions, no VS Code API: the server computes every number, this
// only lays them out as SVG.
//
//   - occupancy over block sizes (every multiple of 32), the current launch
//     and its limiter marked, the threshold dashed;
//   - a roofline: the GPU's memory and compute roofs, the model's point
//     (arithmetic intensity from the static counts; its height is the bound
//     the roofs allow) and, once profiled, the measured point;
//   - for an optimize result, before/after bars per candidate.

export interface CurvePoint {
  threads: number;
  occupancy: number | null;
  blocks_per_sm?: number;
  limiter?: string;
  note?: string;
  current?: boolean;
}

export interface KernelView {
  uri: string;
  version: number;
  kernel: { name: string; key: string; signature: string; line: number };
  gpu?: { arch: string; name: string; source: string; dram_gbs: number | null; fp32_gflops: number | null };
  work?: {
    modelled: boolean;
    intensity: number;
    flops_per_thread: number | null;
    bytes_per_thread: number | null;
    trips_known: boolean;
    unknown_loops: string[];
    fp64: boolean;
    threads: number | null;
    flops_per_launch: number | null;
    bytes_per_launch: number | null;
  };
  resources?: {
    known: boolean;
    missing?: string;
    registers?: number;
    shared_static_bytes?: number;
    shared_dynamic_bytes?: number;
    stack_bytes?: number;
    spill_store_bytes?: number;
    spill_load_bytes?: number;
    barriers?: number;
    code_lens?: string;
    stale_version?: number | null;
  };
  occupancy?: {
    known: boolean;
    missing?: string;
    value: number;
    limiter: string;
    cannot_launch: string;
    largest_block: number;
    registers_to_fit: number;
    threshold: number;
    sentence: string;
    lever: string | null;
    block: { shape: string; threads: number; source: string; detail: string };
    curve: CurvePoint[];
    launches: { threads: number; shape: string; source: string; occupancy: number | null }[];
  };
  measured?: {
    origin: string;
    stale: boolean;
    launches: number;
    time_ns: number | null;
    effective_gbs: number | null;
    peak_gbs: number | null;
    title: string;
  } | null;
  findings?: { code: string; severity: number; message: string; line: number }[];
}

export interface OptimizeCandidate {
  id: string;
  title: string;
  before_ms: number;
  after_ms: number;
  speedup: number;
  correct: boolean;
  compiled: boolean;
  level: number;
  verdict: string;
  reason: string;
}

export interface OptimizeResult {
  kernel: string;
  summary?: string;
  gpu?: string;
  candidates?: OptimizeCandidate[];
}

const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const pct = (f: number): string => {
  const p = f * 100;
  return Math.abs(p - Math.round(p)) < 0.05 ? `${Math.round(p)}%` : `${p.toFixed(1)}%`;
};

function bytes(n: number | undefined): string {
  if (n === undefined) return '—';
  if (n < 1024) return `${n} B`;
  return n % 1024 === 0 ? `${n / 1024} KB` : `${(n / 1024).toFixed(1)} KB`;
}

function si(v: number, unit: string): string {
  const steps: [number, string][] = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [scale, prefix] of steps) if (Math.abs(v) >= scale) return `${(v / scale).toPrecision(3)} ${prefix}${unit}`;
  return `${v.toPrecision(3)} ${unit}`;
}

const severityName = ['', 'error', 'warning', 'info', 'hint'];

// ------------------------------------------------------------------ occupancy

export function occupancySvg(view: KernelView): string {
  const occ = view.occupancy;
  if (!occ || !occ.known || occ.curve.length === 0) return '';
  const W = 600, H = 240, L = 48, R = 16, T = 16, B = 40;
  const maxT = Math.max(...occ.curve.map((p) => p.threads));
  const x = (t: number) => L + ((W - L - R) * t) / maxT;
  const y = (o: number) => T + (H - T - B) * (1 - o);
  const parts: string[] = [];
  // Axes and grid.
  for (const o of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line class="grid" x1="${L}" x2="${W - R}" y1="${y(o)}" y2="${y(o)}"/>`);
    parts.push(`<text class="tick" x="${L - 6}" y="${y(o) + 4}" text-anchor="end">${pct(o)}</text>`);
  }
  for (const t of [32, 128, 256, 384, 512, 640, 768, 896, 1024].filter((t) => t <= maxT))
    parts.push(`<text class="tick" x="${x(t)}" y="${H - B + 16}" text-anchor="middle">${t}</text>`);
  parts.push(`<text class="axis" x="${(L + W - R) / 2}" y="${H - 6}" text-anchor="middle">threads per block</text>`);
  // Threshold.
  parts.push(`<line class="threshold" x1="${L}" x2="${W - R}" y1="${y(occ.threshold)}" y2="${y(occ.threshold)}"/>`);
  parts.push(`<text class="tick" x="${W - R}" y="${y(occ.threshold) - 4}" text-anchor="end">threshold ${pct(occ.threshold)}</text>`);
  // The curve: a step line through the launchable sizes; sizes that cannot
  // launch are red marks on the axis, sizes over __launch_bounds__ are absent.
  let path = '';
  for (const p of occ.curve) {
    if (p.occupancy === null || p.occupancy === 0) {
      path += ' ';
      continue;
    }
    path += `${path.trim() === '' || path.endsWith(' ') ? 'M' : 'L'}${x(p.threads).toFixed(1)},${y(p.occupancy).toFixed(1)}`;
  }
  parts.push(`<path class="curve" d="${path.trim().replace(/ +/g, ' ')}"/>`);
  for (const p of occ.curve) {
    if (p.occupancy === 0)
      parts.push(`<rect class="nolaunch" x="${x(p.threads) - 2}" y="${y(0) - 6}" width="4" height="6"><title>${esc(p.threads)} threads: ${esc(p.note)}</title></rect>`);
    else if (p.occupancy !== null)
      parts.push(`<circle class="dot" cx="${x(p.threads)}" cy="${y(p.occupancy)}" r="1.8"><title>${p.threads} threads: ${pct(p.occupancy)}${p.limiter && p.limiter !== 'none' ? `, limited by ${esc(p.limiter)}` : ''}</title></circle>`);
  }
  // The current launch.
  const cur = occ.block.threads;
  const curO = occ.cannot_launch ? 0 : occ.value;
  parts.push(`<line class="current" x1="${x(cur)}" x2="${x(cur)}" y1="${T}" y2="${H - B}"/>`);
  parts.push(`<circle class="${occ.cannot_launch ? 'nolaunch' : 'mark'}" cx="${x(cur)}" cy="${y(curO)}" r="5"/>`);
  const label = occ.cannot_launch
    ? `${cur} threads: cannot launch`
    : `${cur} threads: ${pct(occ.value)}${occ.limiter && occ.limiter !== 'none' ? ` (limited by ${occ.limiter})` : ''}`;
  const anchor = x(cur) > W / 2 ? 'end' : 'start';
  const dx = anchor === 'end' ? -8 : 8;
  const ly = Math.min(Math.max(y(curO) - 10, T + 12), H - B - 8);
  parts.push(`<text class="label" x="${x(cur) + dx}" y="${ly}" text-anchor="${anchor}">${esc(label)}</text>`);
  if (occ.largest_block > 0 && occ.cannot_launch) {
    parts.push(`<line class="fits" x1="${x(occ.largest_block)}" x2="${x(occ.largest_block)}" y1="${T}" y2="${H - B}"/>`);
    parts.push(`<text class="tick" x="${x(occ.largest_block) - 4}" y="${T + 10}" text-anchor="end">largest that fits: ${occ.largest_block}</text>`);
  }
  return `<svg class="chart" id="occupancy-chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="occupancy by block size">${parts.join('')}</svg>`;
}

// ------------------------------------------------------------------- roofline

export interface RooflinePoint {
  intensity: number;
  gflops: number;
}

/** The model's point: at its intensity, as high as the roofs allow. */
export function modelPoint(view: KernelView): RooflinePoint | undefined {
  const w = view.work, g = view.gpu;
  if (!w || !w.modelled || !(w.intensity > 0) || !g?.dram_gbs || !g.fp32_gflops) return undefined;
  return { intensity: w.intensity, gflops: Math.min(g.fp32_gflops, w.intensity * g.dram_gbs) };
}

/**
 * The measured point: the model's flops per launch over the measured time,
 * else the model's intensity times the measured effective bandwidth.
 */
export function measuredPoint(view: KernelView): RooflinePoint | undefined {
  const w = view.work, m = view.measured;
  if (!w || !m || !(w.intensity > 0)) return undefined;
  if (w.flops_per_launch && m.time_ns) return { intensity: w.intensity, gflops: w.flops_per_launch / m.time_ns };
  if (m.effective_gbs) return { intensity: w.intensity, gflops: w.intensity * m.effective_gbs };
  return undefined;
}

export function rooflineSvg(view: KernelView): string {
  const g = view.gpu, model = modelPoint(view);
  if (!g?.dram_gbs || !g.fp32_gflops || !model) return '';
  const measured = measuredPoint(view);
  const W = 600, H = 260, L = 92, R = 16, T = 16, B = 40;
  const ridge = g.fp32_gflops / g.dram_gbs;
  const xs = [model.intensity, ridge, measured?.intensity ?? model.intensity];
  const x0 = Math.pow(2, Math.floor(Math.log2(Math.min(...xs) / 4)));
  const x1 = Math.pow(2, Math.ceil(Math.log2(Math.max(...xs) * 4)));
  const ys = [g.fp32_gflops * 2, x0 * g.dram_gbs, model.gflops, measured?.gflops ?? model.gflops];
  const y0 = Math.pow(10, Math.floor(Math.log10(Math.min(...ys) / 2)));
  const y1 = Math.pow(10, Math.ceil(Math.log10(Math.max(...ys))));
  const x = (i: number) => L + ((W - L - R) * Math.log(i / x0)) / Math.log(x1 / x0);
  const y = (f: number) => T + (H - T - B) * (1 - Math.log(f / y0) / Math.log(y1 / y0));
  const parts: string[] = [];
  for (let d = y0; d <= y1 * 1.0001; d *= 10) {
    parts.push(`<line class="grid" x1="${L}" x2="${W - R}" y1="${y(d)}" y2="${y(d)}"/>`);
    parts.push(`<text class="tick" x="${L - 6}" y="${y(d) + 4}" text-anchor="end">${esc(si(d * 1e9, 'FLOP/s'))}</text>`);
  }
  for (let i = x0; i <= x1 * 1.0001; i *= 4)
    parts.push(`<text class="tick" x="${x(i)}" y="${H - B + 16}" text-anchor="middle">${i >= 1 ? i : `1/${1 / i}`}</text>`);
  parts.push(`<text class="axis" x="${(L + W - R) / 2}" y="${H - 6}" text-anchor="middle">arithmetic intensity (FLOP per byte of global memory)</text>`);
  // Roofs: memory (slope BW) up to the ridge, then compute.
  parts.push(`<path class="roof" d="M${x(x0)},${y(x0 * g.dram_gbs)} L${x(ridge)},${y(g.fp32_gflops)} L${x(x1)},${y(g.fp32_gflops)}"/>`);
  parts.push(`<text class="tick" x="${x(x1) - 4}" y="${y(g.fp32_gflops) - 6}" text-anchor="end">${esc(si(g.fp32_gflops * 1e9, 'FLOP/s'))} FP32</text>`);
  parts.push(`<text class="tick" x="${x(x0) + 6}" y="${y(x0 * g.dram_gbs) - 8}">${esc(si(g.dram_gbs * 1e9, 'B/s'))} DRAM</text>`);
  // The model's point (hollow: a bound, not a measurement) and the measured one.
  parts.push(`<line class="current" x1="${x(model.intensity)}" x2="${x(model.intensity)}" y1="${T}" y2="${H - B}"/>`);
  parts.push(`<circle class="model" cx="${x(model.intensity)}" cy="${y(model.gflops)}" r="6"/>`);
  const left = x(model.intensity) > W * 0.6;
  parts.push(`<text class="label" x="${x(model.intensity) + (left ? -10 : 10)}" y="${y(model.gflops) + 16}" text-anchor="${left ? 'end' : 'start'}">model: ${esc(model.intensity.toPrecision(3))} FLOP/B, bound ${esc(si(model.gflops * 1e9, 'FLOP/s'))}</text>`);
  if (measured) {
    parts.push(`<circle class="measured" cx="${x(measured.intensity)}" cy="${y(measured.gflops)}" r="6"/>`);
    parts.push(`<text class="label" x="${x(measured.intensity) + (left ? -10 : 10)}" y="${y(measured.gflops) + 4}" text-anchor="${left ? 'end' : 'start'}">measured: ${esc(si(measured.gflops * 1e9, 'FLOP/s'))}</text>`);
  }
  return `<svg class="chart" id="roofline-chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="roofline">${parts.join('')}</svg>`;
}

function rooflineText(view: KernelView): string {
  const w = view.work, g = view.gpu;
  if (!w || !w.modelled) return '<p>No global-memory accesses in the model: nothing to place on the roofline.</p>';
  if (!(w.intensity > 0))
    return '<p>No floating-point arithmetic found: the kernel only moves data, so its roof is the DRAM bandwidth' +
      (g?.dram_gbs ? ` (${esc(si(g.dram_gbs * 1e9, 'B/s'))})` : '') + '.</p>';
  const model = modelPoint(view);
  const lines: string[] = [];
  const ridge = g?.fp32_gflops && g.dram_gbs ? g.fp32_gflops / g.dram_gbs : undefined;
  lines.push(`Arithmetic intensity ${esc(w.intensity.toPrecision(3))} FLOP/B (model: global accesses and floating-point ` +
    `operations per thread${w.trips_known ? '' : ', as the unknown loops grow'})` +
    (ridge ? `: <b>${w.intensity < ridge ? 'memory-bound' : 'compute-bound'}</b> (ridge at ${esc(ridge.toPrecision(3))} FLOP/B)` : '') + '.');
  if (w.flops_per_thread !== null && w.bytes_per_thread !== null)
    lines.push(`Per thread: ${esc(w.flops_per_thread)} FLOP, ${esc(w.bytes_per_thread)} B` +
      (w.threads ? `; per launch (${esc(w.threads)} threads): ${esc(si(w.flops_per_launch ?? 0, 'FLOP'))}, ${esc(si(w.bytes_per_launch ?? 0, 'B'))}` : '') + '.');
  if (w.unknown_loops.length) lines.push(`Loops with unknown trip counts: ${w.unknown_loops.map(esc).join('; ')}.`);
  if (model) lines.push(`The roofs allow at most ${esc(si(model.gflops * 1e9, 'FLOP/s'))} at this intensity.`);
  const m = view.measured;
  const point = measuredPoint(view);
  if (m && point)
    lines.push(`Measured${m.stale ? ' (stale)' : ''}: ${esc(si(point.gflops * 1e9, 'FLOP/s'))}` +
      (model ? `, ${esc(pct(point.gflops / model.gflops))} of the bound` : '') + ` — ${esc(m.title)}.`);
  else lines.push('Measured: not profiled yet (warplens: Profile).');
  lines.push('<span class="note">Caches are not modelled: data re-read from L1/L2 counts as DRAM traffic, so the ' +
    'intensity is a lower bound for kernels with reuse.</span>');
  return lines.map((l) => `<p>${l}</p>`).join('');
}

// -------------------------------------------------------------------- optimize

export function optimizeSvg(result: OptimizeResult): string {
  const cs = result.candidates ?? [];
  if (cs.length === 0) return '';
  const rowH = 46, W = 600, L = 8, T = 8, barX = L + 40, barMax = W - barX - 190;
  const max = Math.max(...cs.map((c) => Math.max(c.before_ms, c.after_ms)), 1e-9);
  const bar = (ms: number) => (barMax * ms) / max;
  const parts: string[] = [];
  cs.forEach((c, i) => {
    const top = T + i * rowH;
    const ok = c.correct && c.after_ms > 0;
    parts.push(`<text class="tick" x="${L}" y="${top + 11}">${esc(c.id)}</text>`);
    parts.push(`<rect class="before" x="${barX}" y="${top + 2}" width="${bar(c.before_ms).toFixed(1)}" height="10"><title>original ${c.before_ms.toFixed(4)} ms</title></rect>`);
    if (ok)
      parts.push(`<rect class="${c.speedup > 1.05 ? 'after' : 'after-slower'}" x="${barX}" y="${top + 14}" width="${bar(c.after_ms).toFixed(1)}" height="10"><title>candidate ${c.after_ms.toFixed(4)} ms</title></rect>`);
    const text = ok
      ? `${c.before_ms.toFixed(3)} → ${c.after_ms.toFixed(3)} ms (${c.speedup.toFixed(2)}×)`
      : `${!c.compiled ? 'did not compile' : !c.correct ? 'incorrect' : 'not timed'}`;
    parts.push(`<text class="label" x="${barX + 6 + Math.max(bar(c.before_ms), ok ? bar(c.after_ms) : 0)}" y="${top + 18}">${esc(text)}</text>`);
    const plan = c.title + (!ok && c.reason ? ` — ${c.reason}` : '');
    parts.push(`<text class="tick" x="${barX}" y="${top + 37}">${esc(plan.length > 90 ? `${plan.slice(0, 89)}…` : plan)}</text>`);
  });
  const H = T + cs.length * rowH;
  return `<svg class="chart" id="optimize-chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="optimize results">${parts.join('')}</svg>`;
}

// ----------------------------------------------------------------------- page

const style = `
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 16px 24px; }
h1 { font-size: 1.3em; font-weight: 600; margin: 14px 0 4px; }
h2 { font-size: 1.05em; font-weight: 600; margin: 18px 0 6px; border-bottom: 1px solid var(--vscode-panel-border, #8884); }
code, .lens { font-family: var(--vscode-editor-font-family); }
.lens { opacity: .8; }
table { border-collapse: collapse; } td, th { padding: 2px 10px; border-bottom: 1px solid var(--vscode-panel-border, #8883); text-align: right; }
th { font-weight: 600; }
.note { opacity: .7; font-size: .9em; }
.sev-1 { color: var(--vscode-errorForeground, #f14c4c); } .sev-2 { color: var(--vscode-editorWarning-foreground, #cca700); }
svg.chart { max-width: 100%; height: auto; }
svg.chart text { fill: var(--vscode-foreground); font-size: 11px; font-family: var(--vscode-font-family); }
svg.chart text.label { font-size: 12px; font-weight: 600; }
svg.chart .grid { stroke: var(--vscode-foreground); stroke-opacity: .12; }
svg.chart .threshold { stroke: var(--vscode-editorWarning-foreground, #cca700); stroke-dasharray: 5 4; }
svg.chart .curve { fill: none; stroke: var(--vscode-charts-blue, #3794ff); stroke-width: 2; }
svg.chart .dot { fill: var(--vscode-charts-blue, #3794ff); }
svg.chart .current { stroke: var(--vscode-foreground); stroke-opacity: .35; stroke-dasharray: 2 3; }
svg.chart .mark { fill: var(--vscode-charts-orange, #d18616); }
svg.chart .nolaunch { fill: var(--vscode-charts-red, #f14c4c); }
svg.chart .fits { stroke: var(--vscode-charts-green, #89d185); stroke-dasharray: 4 3; }
svg.chart .roof { fill: none; stroke: var(--vscode-foreground); stroke-width: 2; stroke-opacity: .7; }
svg.chart .model { fill: none; stroke: var(--vscode-charts-orange, #d18616); stroke-width: 2.5; }
svg.chart .measured { fill: var(--vscode-charts-green, #89d185); }
svg.chart .before { fill: var(--vscode-foreground); fill-opacity: .35; }
svg.chart .after { fill: var(--vscode-charts-green, #89d185); }
svg.chart .after-slower { fill: var(--vscode-charts-orange, #d18616); }
`;

function resourcesTable(view: KernelView): string {
  const r = view.resources;
  if (!r) return '';
  if (!r.known) return `<p>Resource usage unavailable: ${esc(r.missing)}.</p>`;
  return '<table><tr><th>registers</th><th>shared (static)</th><th>shared (dynamic)</th><th>stack</th>' +
    '<th>spill stores / loads</th><th>barriers</th></tr>' +
    `<tr><td>${esc(r.registers)}</td><td>${bytes(r.shared_static_bytes)}</td><td>${bytes(r.shared_dynamic_bytes)}</td>` +
    `<td>${bytes(r.stack_bytes)}</td><td>${bytes(r.spill_store_bytes)} / ${bytes(r.spill_load_bytes)}</td>` +
    `<td>${esc(r.barriers)}</td></tr></table>`;
}

/** Inline markdown of the server's sentences: **bold** and `code`. */
function inline(md: string): string {
  return esc(md).replace(/\*\*(.+?)\*\*/g, '<b>$1</b>').replace(/`([^`]+)`/g, '<code>$1</code>');
}

export function reportHtml(view: KernelView | undefined, optimize: OptimizeResult | undefined, cspSource: string): string {
  const body: string[] = [];
  const name = view?.kernel.name ?? optimize?.kernel ?? 'kernel';
  body.push(`<h1>kernel <code>${esc(name)}</code>${view?.gpu ? ` · ${esc(view.gpu.arch)} · ${esc(view.gpu.name)}` : ''}</h1>`);
  if (view) {
    if (view.resources?.code_lens) body.push(`<p class="lens">${esc(view.resources.code_lens)}</p>`);
    if (view.resources?.stale_version != null)
      body.push(`<p class="note">Updating: these numbers are from version ${esc(view.resources.stale_version)}; nvcc is compiling the current text.</p>`);
    body.push('<h2>Occupancy by block size</h2>');
    const occ = view.occupancy;
    if (occ?.known) {
      body.push(occupancySvg(view));
      body.push(`<p>Block ${esc(occ.block.shape)} from ${esc(occ.block.detail)}. ${inline(occ.sentence)}</p>`);
      if (occ.lever) body.push(`<p>${inline(occ.lever)}.</p>`);
    } else {
      body.push(`<p>Occupancy unavailable: ${esc(occ?.missing ?? view.resources?.missing ?? 'resource usage not computed')}.</p>`);
    }
    body.push('<h2>Roofline</h2>');
    body.push(rooflineSvg(view));
    body.push(rooflineText(view));
    const findings = view.findings ?? [];
    if (findings.length) {
      body.push('<h2>Findings</h2><ul>');
      for (const f of findings)
        body.push(`<li><span class="sev-${f.severity}">${esc(severityName[f.severity] ?? '')}</span> <code>${esc(f.code)}</code> line ${f.line + 1}: ${inline(f.message)}</li>`);
      body.push('</ul>');
    }
    body.push('<h2>Resources</h2>');
    body.push(resourcesTable(view));
    if (view.gpu) body.push(`<p class="note">Device limits and peaks: ${esc(view.gpu.source)}.</p>`);
  }
  if (optimize?.candidates?.length) {
    body.push(`<h2>Optimize results${optimize.gpu ? ` on ${esc(optimize.gpu)}` : ''}</h2>`);
    if (optimize.summary) body.push(`<p>${inline(optimize.summary)}</p>`);
    body.push(optimizeSvg(optimize));
    body.push('<p class="note">Grey: the original kernel\'s median time; green: the candidate\'s (orange: not faster by more than 5%).</p>');
  }
  return `<!DOCTYPE html><html><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'unsafe-inline';">` +
    `<style>${style}</style></head><body>${body.join('\n')}</body></html>`;
}
