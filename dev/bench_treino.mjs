// Benchmark do treino (não é teste: mede e imprime "dentro"/"FORA"; nada falha por tempo).
//
//   node dev/bench_treino.mjs [pasta do site, padrão _build/html]
//
// 1. Pyodide no Node: a passada de volta no prompt contra a de ida (orçamento: volta ≤ 3 × ida);
// 2. Chromium, com o site servido em 127.0.0.1:8401 (ou LIVRO_PORTA): 200 passos de treino no widget
//    (do clique em "Começar" até "Passo 200"; orçamento ≤ 3 s) e, enquanto ele treina, as
//    respostas do widget de outra página (a da saída, noutra aba: o mesmo worker compartilhado;
//    orçamento ≤ 100 ms) e o maior intervalo entre dois quadros da página que treina.
// A máquina pode estar dividida: os números servem como razão, lado a lado.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve, extname, normalize, sep, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";
import { launch } from "../tests/navegador/chromium.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..");
const HTML = resolve(process.argv[2] || join(RAIZ, "_build", "html"));
const PORTA = Number(process.env.LIVRO_PORTA || 8401);
const ORC = { razao: 3, passos200: 3000, resposta: 100 };
const f = (x, c = 1) => x.toFixed(c).replace(".", ",");
const veredito = (ok) => (ok ? "dentro" : "FORA");

// --- 1. Pyodide no Node -------------------------------------------------------------------
const MEDE = `
import time
from livro import brinquedo as b, treino as tr
pesos = tr.pesos_do_brinquedo()
def melhor(fn, n=30, rodadas=5):
    ts = []
    for _ in range(rodadas):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        ts.append((time.perf_counter() - t0) / n)
    return min(ts)
r = tr.ida(pesos, b.IDS_PROMPT)
ida = melhor(lambda: tr.ida(pesos, b.IDS_PROMPT))
volta = melhor(lambda: tr.volta(pesos, r))
t0 = time.perf_counter(); tr.treinar(20, tr.TAXA); passo = (time.perf_counter() - t0) / 20
(ida * 1000, volta * 1000, passo * 1000)
`;
const py = await loadPyodide();
const site = py.runPython("import site; site.getsitepackages()[0]");
py.FS.mkdirTree(`${site}/livro`);
for (const m of ["__init__", "brinquedo", "treino"]) {
  py.FS.writeFile(`${site}/livro/${m}.py`, readFileSync(join(RAIZ, "lab", "livro", `${m}.py`), "utf8"));
}
const [idaMs, voltaMs, passoMs] = py.runPython(MEDE).toJs();
console.log("Pyodide (Node), a passada no prompt (o melhor de 5 rodadas de 30):");
console.log(`  ida ${f(idaMs, 2)} ms · volta ${f(voltaMs, 2)} ms · volta/ida ${f(voltaMs / idaMs, 2)} ` +
  `(≤ ${ORC.razao}: ${veredito(voltaMs / idaMs <= ORC.razao)}) · um passo de treino ${f(passoMs)} ms`);

// --- 2. Chromium ----------------------------------------------------------------------------
if (!existsSync(join(HTML, "book", "treino.html"))) {
  console.log(`Sem ${join(HTML, "book", "treino.html")}: rode make book para a parte do navegador.`);
  process.exit(0);
}
const TIPOS = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript",
  ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm", ".svg": "image/svg+xml",
  ".zip": "application/zip", ".whl": "application/zip", ".png": "image/png", ".woff2": "font/woff2" };
const servidor = createServer(async (req, res) => {
  try {
    let arq = normalize(join(HTML, decodeURIComponent(new URL(req.url, "http://x").pathname)));
    if (!arq.startsWith(HTML + sep) && arq !== HTML) throw new Error("fora");
    if ((await stat(arq)).isDirectory()) arq = join(arq, "index.html");
    const corpo = await readFile(arq);
    res.writeHead(200, { "content-type": TIPOS[extname(arq)] || "application/octet-stream" });
    res.end(corpo);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((ok) => servidor.listen(PORTA, "127.0.0.1", ok));
const base = `http://127.0.0.1:${PORTA}`;
const navegador = await launch();
try {
  const ctx = await navegador.newContext();
  const treino = await ctx.newPage();
  await treino.goto(`${base}/book/treino.html`);
  const comecar = treino.locator('#widget-treino button[data-acao="comecar"]');
  await comecar.scrollIntoViewIfNeeded();
  await treino.waitForFunction(() => {
    const b = document.querySelector('#widget-treino button[data-acao="comecar"]');
    return b && !b.disabled && document.querySelector("#widget-treino").dataset.ocupado === "0";
  }, null, { timeout: 180_000 });
  const saida = await ctx.newPage();
  await saida.goto(`${base}/book/saida.html`);
  await saida.locator("#widget-saida").scrollIntoViewIfNeeded();
  await saida.waitForFunction(() => {
    const w = document.querySelector("#widget-saida");
    return w && w.dataset.ocupado === "0" && !w.querySelector('input[name="atencao"]').disabled;
  }, null, { timeout: 180_000 });
  await treino.bringToFront();
  // os quadros da página que treina
  await treino.evaluate(() => {
    globalThis.bench = { maiorQuadro: 0 };
    let ant = performance.now();
    const q = (t) => { globalThis.bench.maiorQuadro = Math.max(globalThis.bench.maiorQuadro, t - ant); ant = t;
      if (!globalThis.bench.parar) requestAnimationFrame(q); };
    requestAnimationFrame(q);
  });
  const t0 = Date.now();
  await comecar.click();
  // enquanto treina: 10 cliques na caixa "com atenção" da outra aba, um de cada vez
  const respostas = await saida.evaluate(async () => {
    const w = document.querySelector("#widget-saida");
    const caixa = w.querySelector('input[name="atencao"]');
    const ms = [];
    for (let i = 0; i < 10; i++) {
      await new Promise((ok) => setTimeout(ok, 120));
      const t = performance.now();
      caixa.click();
      await new Promise((ok) => {
        const obs = new MutationObserver(() => { if (w.dataset.ocupado === "0") { obs.disconnect(); ok(); } });
        obs.observe(w, { attributes: true, attributeFilter: ["data-ocupado"] });
      });
      ms.push(performance.now() - t);
    }
    return ms;
  });
  await treino.waitForFunction(() => {
    const m = /Passo (\d+)/.exec(document.querySelector("#widget-treino .lw-saida").textContent);
    return m && Number(m[1]) >= 200;
  }, null, { timeout: 120_000, polling: 20 });
  const passos200 = Date.now() - t0;
  const maiorQuadro = await treino.evaluate(() => { globalThis.bench.parar = true; return globalThis.bench.maiorQuadro; });
  const pior = Math.max(...respostas);
  console.log("Chromium, o widget treinando:");
  console.log(`  200 passos em ${f(passos200 / 1000, 2)} s (≤ 3 s: ${veredito(passos200 <= ORC.passos200)})`);
  console.log(`  respostas do widget da saída, noutra aba, enquanto treina: pior ${f(pior)} ms, ` +
    `mediana ${f(respostas.sort((a, b) => a - b)[5])} ms (≤ ${ORC.resposta} ms: ${veredito(pior <= ORC.resposta)})`);
  console.log(`  o maior intervalo entre quadros na página que treina: ${f(maiorQuadro)} ms`);
} finally {
  await navegador.close();
  servidor.close();
}
