// Benchmark das páginas (não é teste: mede e imprime; nada falha por tempo).
//
//   node dev/bench_paginas.mjs [pasta do site, padrão _build/html] [--json] [--vezes=N]
//                              [--sem-lighthouse] [--so=bloco,index]  (só essas páginas)
//
// 1. peso: para cada página, os bytes gzip-equivalentes (gzip -9 de cada arquivo) de tudo
//    o que o navegador pede antes de o leitor interagir (HTML, CSS, JS, fontes, imagens;
//    widgets no modo "uso"), e se algum pedido é do Font Awesome, do MathJax ou do
//    searchindex.js (tests/navegador/peso.mjs);
// 2. Lighthouse (mobile, o padrão: celular simulado a 1,6 Mbps / 150 ms de RTT, CPU 4×
//    mais lenta), servido com gzip em 127.0.0.1 como no GitHub Pages: nota de desempenho e
//    CLS; a mediana de --vezes (padrão 1) execuções;
// 3. primeiro texto na tela (First Contentful Paint) num Chromium a 390 × 844 com a rede
//    limitada pelo CDP a 1,6 Mbps de descida e 150 ms de RTT, cache vazio.
// Orçamentos: peso ≤ 400 KB por página; Lighthouse ≥ 90; CLS ≤ 0,05; primeiro texto ≤ 3 s.
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";
import { readFile, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import { extname, join, normalize, resolve, sep, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { launch, bloquearRede, CHROMIUM, ARGS } from "../tests/navegador/chromium.mjs";
import { pesar, ORCAMENTO_PAGINA } from "../tests/navegador/peso.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const HTML = resolve(args.find((a) => !a.startsWith("--")) || join(RAIZ, "_build", "html"));
const JSON_SAIDA = args.includes("--json");
const VEZES = Number((args.find((a) => a.startsWith("--vezes=")) || "--vezes=1").slice(8));
const SEM_LH = args.includes("--sem-lighthouse");
const SO = (args.find((a) => a.startsWith("--so=")) || "").slice(5).split(",").filter(Boolean);
const so = (lista) => (SO.length ? lista.filter((p) => SO.some((s) => p.includes(s))) : lista);
const ORC = { peso: ORCAMENTO_PAGINA, nota: 90, cls: 0.05, texto: 3000 };

// As páginas com orçamento; a de números só é pesada (uma tabela de tudo, não é de leitura).
const PASSOS = ["tokens", "embeddings", "qkv", "mascaras", "bloco", "saida", "proximo_token"];
const PESADAS = ["index", ...PASSOS, "laboratorio"].map((p) => `book/${p}.html`);
const SO_INFO = ["book/numeros.html"];
const LIGHTHOUSE = ["index", "bloco", "proximo_token", "laboratorio"].map((p) => `book/${p}.html`);

if (!existsSync(join(HTML, "book", "index.html"))) {
  console.error(`Sem site em ${HTML}: rode make book.`);
  process.exit(2);
}

const kb = (n) => `${(n / 1000).toFixed(1).replace(".", ",")} KB`;
const num = (x, c = 2) => x.toFixed(c).replace(".", ",");
const veredito = (ok) => (ok ? "dentro" : "FORA");
const mediana = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };

// Servidor estático com gzip (como o GitHub Pages) para o Lighthouse e a rede lenta.
const TIPOS = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript",
  ".css": "text/css", ".json": "application/json", ".svg": "image/svg+xml", ".png": "image/png",
  ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".wasm": "application/wasm",
  ".py": "text/x-python; charset=utf-8", ".zip": "application/zip", ".gz": "application/gzip" };
const COMPRIME = /^(text\/|application\/(json|javascript)|image\/svg|font\/ttf)/;
async function servirGzip(raiz) {
  const base = resolve(raiz);
  const cache = new Map();
  const srv = createServer(async (req, res) => {
    try {
      const caminho = decodeURIComponent(new URL(req.url, "http://x").pathname);
      let arquivo = normalize(join(base, caminho));
      if (arquivo !== base && !arquivo.startsWith(base + sep)) throw new Error("fora");
      if ((await stat(arquivo)).isDirectory()) arquivo = join(arquivo, "index.html");
      const tipo = TIPOS[extname(arquivo)] || "application/octet-stream";
      let corpo = await readFile(arquivo);
      const cab = { "content-type": tipo, "cache-control": "max-age=600" };
      if (COMPRIME.test(tipo) && /gzip/.test(req.headers["accept-encoding"] || "")) {
        if (!cache.has(arquivo)) cache.set(arquivo, gzipSync(corpo, { level: 6 }));
        corpo = cache.get(arquivo);
        cab["content-encoding"] = "gzip";
        cab.vary = "accept-encoding";
      }
      cab["content-length"] = corpo.length;
      res.writeHead(200, cab);
      res.end(req.method === "HEAD" ? undefined : corpo);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("não encontrado");
    }
  });
  const abertos = new Set();
  srv.on("connection", (s) => { abertos.add(s); s.on("close", () => abertos.delete(s)); });
  await new Promise((ok) => srv.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${srv.address().port}/`,
    fechar: () => new Promise((ok) => { for (const s of abertos) s.destroy(); srv.close(ok); }),
  };
}

async function rodarLighthouse(url) {
  const { default: lighthouse } = await import("lighthouse");
  const chromeLauncher = await import("chrome-launcher");
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH || CHROMIUM,
    // as mesmas opções dos testes e do bench dos widgets (tests/navegador/chromium.mjs): sem elas,
    // o menu WebUI da barra de endereço disputava os 2 núcleos com a página medida
    chromeFlags: ["--headless", ...ARGS],
  });
  try {
    const r = await lighthouse(url, { port: chrome.port, onlyCategories: ["performance"], logLevel: "error",
      output: "json" });
    const a = r.lhr.audits;
    return {
      nota: Math.round(100 * r.lhr.categories.performance.score),
      cls: a["cumulative-layout-shift"].numericValue,
      fcp: a["first-contentful-paint"].numericValue,
      lcp: a["largest-contentful-paint"].numericValue,
      tbt: a["total-blocking-time"].numericValue,
      erro: r.lhr.runtimeError?.message,
    };
  } finally {
    await chrome.kill();
  }
}

// Primeiro texto na tela numa rede de celular (CDP): 1,6 Mbps de descida, 150 ms de RTT.
async function primeiroTexto(navegador, url) {
  const ctx = await navegador.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await bloquearRede(ctx);
  const pg = await ctx.newPage();
  const cdp = await ctx.newCDPSession(pg);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false, latency: 150, downloadThroughput: (1.6e6 / 8), uploadThroughput: (750e3 / 8),
  });
  const t0 = Date.now();
  await pg.goto(url, { waitUntil: "domcontentloaded", timeout: 120_000 });
  const fcp = await pg.evaluate(() => new Promise((ok) => {
    const ja = performance.getEntriesByName("first-contentful-paint")[0];
    if (ja) return ok(ja.startTime);
    new PerformanceObserver((l) => {
      const e = l.getEntriesByName("first-contentful-paint")[0];
      if (e) ok(e.startTime);
    }).observe({ type: "paint", buffered: true });
  }));
  await pg.waitForLoadState("load", { timeout: 120_000 }).catch(() => {});
  const carga = Date.now() - t0;
  await ctx.close();
  return { fcp, carga };
}

const resultado = { peso: {}, lighthouse: {}, texto: {} };
const linhas = [];
const diz = (s) => { linhas.push(s); if (!JSON_SAIDA) console.log(s); };

const srvGz = await servirGzip(HTML);
const navegador = await launch();
try {
  diz(`Peso antes de interagir (gzip-equivalente; orçamento ≤ ${kb(ORC.peso)} por página):`);
  for (const rel of so([...PESADAS, ...SO_INFO])) {
    const p = await pesar(navegador, srvGz.url + rel, HTML);
    resultado.peso[rel] = p;
    const tipos = Object.entries(p.porTipo).sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${kb(n)}`).join(", ");
    const ok = p.total <= ORC.peso && !p.proibidos.length;
    const marca = SO_INFO.includes(rel) ? "(só informa)" : veredito(ok);
    diz(`  ${rel.padEnd(24)} ${kb(p.total).padStart(10)}  ${marca}   [${tipos}]` +
      (p.proibidos.length ? `  pediu: ${p.proibidos.join(", ")}` : ""));
  }

  diz(`Primeiro texto na tela (FCP; 390 × 844, 1,6 Mbps / 150 ms, cache vazio; orçamento ≤ ${num(ORC.texto / 1000, 0)} s):`);
  for (const rel of so(LIGHTHOUSE)) {
    const t = await primeiroTexto(navegador, srvGz.url + rel);
    resultado.texto[rel] = t;
    diz(`  ${rel.padEnd(24)} ${num(t.fcp / 1000, 1)} s  ${veredito(t.fcp <= ORC.texto)}   (carga completa ${num(t.carga / 1000, 1)} s)`);
  }
} finally {
  await navegador.close();
}

if (!SEM_LH) {
  diz(`Lighthouse mobile, servido com gzip (orçamentos: desempenho ≥ ${ORC.nota}, CLS ≤ ${num(ORC.cls)}; mediana de ${VEZES}):`);
  for (const rel of so(LIGHTHOUSE)) {
    const rodadas = [];
    for (let i = 0; i < VEZES; i++) {
      try { rodadas.push(await rodarLighthouse(srvGz.url + rel)); } catch (e) { rodadas.push({ erro: String(e.message || e) }); }
    }
    const boas = rodadas.filter((r) => !r.erro && Number.isFinite(r.nota));
    if (!boas.length) { diz(`  ${rel.padEnd(24)} não rodou: ${rodadas[0].erro}`); continue; }
    const m = { nota: mediana(boas.map((r) => r.nota)), cls: mediana(boas.map((r) => r.cls)),
      fcp: mediana(boas.map((r) => r.fcp)), lcp: mediana(boas.map((r) => r.lcp)), tbt: mediana(boas.map((r) => r.tbt)),
      notas: boas.map((r) => r.nota) };
    resultado.lighthouse[rel] = m;
    diz(`  ${rel.padEnd(24)} desempenho ${String(m.nota).padStart(3)}  ${veredito(m.nota >= ORC.nota)}   ` +
      `CLS ${num(m.cls, 3)}  ${veredito(m.cls <= ORC.cls)}   (FCP ${num(m.fcp / 1000, 1)} s, LCP ${num(m.lcp / 1000, 1)} s, ` +
      `TBT ${Math.round(m.tbt)} ms${boas.length > 1 ? `; notas ${m.notas.join(", ")}` : ""})`);
  }
}
await srvGz.fechar();
if (JSON_SAIDA) console.log(JSON.stringify(resultado, (k, v) => (k === "arquivos" ? v.slice(0, 12) : v), 1));
