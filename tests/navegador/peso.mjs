// O peso de uma página antes de o leitor interagir (usado por tests/navegador/leve.test.mjs
// e por dev/bench_paginas.mjs).
//
// Abre a página num Chromium de celular (390 × 844), com os widgets no modo "uso" (o Python
// só carrega no primeiro uso: mede-se a página antes de qualquer widget começar), espera a
// rede sossegar e soma, para cada arquivo que o navegador pediu, o tamanho do arquivo depois
// de gzip -9 (o "gzip-equivalente": determinístico, não depende da rede nem do servidor).
import { gzipSync } from "node:zlib";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { bloquearRede } from "./chromium.mjs";

export const ORCAMENTO_PAGINA = 400e3; // bytes gzip-equivalentes antes de interagir

// Pedidos que não podem acontecer antes de o leitor interagir.
export const PROIBIDOS = {
  "Font Awesome (script ou fontes inteiras)": /\/scripts\/fontawesome\.js|\/fontawesome\/webfonts\/fa-[a-z]+-\d+\.(woff2|ttf)/,
  "MathJax": /\/mathjax\//i,
  "searchindex.js": /searchindex\.js/,
};

const cacheGz = new Map();
export function gzipDe(arquivo) {
  if (!cacheGz.has(arquivo)) cacheGz.set(arquivo, gzipSync(readFileSync(arquivo), { level: 9 }).length);
  return cacheGz.get(arquivo);
}

export function tipoDe(caminho) {
  const ext = (caminho.match(/\.([a-z0-9]+)$/i) || [, ""])[1].toLowerCase();
  if (["html", "htm"].includes(ext) || caminho.endsWith("/")) return "html";
  if (ext === "css") return "css";
  if (["js", "mjs"].includes(ext)) return "js";
  if (["woff", "woff2", "ttf", "otf"].includes(ext)) return "fontes";
  if (["png", "svg", "jpg", "jpeg", "gif", "webp", "ico"].includes(ext)) return "imagens";
  return "outros";
}

// Devolve { total, porTipo, arquivos: [{caminho, gz, tipo}], proibidos: [caminho] }.
export async function pesar(navegador, url, raiz, { espera = 1500 } = {}) {
  const ctx = await navegador.newContext({
    viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1,
  });
  await bloquearRede(ctx);
  await ctx.addInitScript(() => { window.LIVRO_WIDGETS = { modo: "uso" }; });
  const pg = await ctx.newPage();
  const pedidos = new Set();
  let ultimo = Date.now();
  pg.on("request", (r) => {
    const u = new URL(r.url());
    if (u.protocol === "http:") { pedidos.add(decodeURIComponent(u.pathname)); ultimo = Date.now(); }
  });
  await pg.goto(url, { waitUntil: "load" });
  while (Date.now() - ultimo < espera) await pg.waitForTimeout(200);
  await ctx.close();
  const arquivos = [];
  for (const caminho of pedidos) {
    let arquivo = join(raiz, caminho);
    try { if (statSync(arquivo).isDirectory()) arquivo = join(arquivo, "index.html"); } catch { continue; }
    try { arquivos.push({ caminho, gz: gzipDe(arquivo), tipo: tipoDe(arquivo) }); } catch { /* 404 */ }
  }
  const porTipo = {};
  for (const a of arquivos) porTipo[a.tipo] = (porTipo[a.tipo] || 0) + a.gz;
  const total = arquivos.reduce((s, a) => s + a.gz, 0);
  const proibidos = [...pedidos].filter((c) => Object.values(PROIBIDOS).some((re) => re.test(c)));
  return { total, porTipo, arquivos: arquivos.sort((a, b) => b.gz - a.gz), proibidos };
}
