// Conforto de leitura: cada página do site construído, num Chromium sem rede.
//
// Precisa do site pronto (make book; ou LIVRO_HTML=pasta). Para cada página, a 1280 px
// (modo claro e depois escuro, contraste) e a 390 px:
// - nada pede rolagem de lado a 1280 px; a 390 px, o que é mais largo que a coluna
//   fica dentro de um contêiner que rola (e mostra que rola, com a sombra de fundo), nada é cortado;
// - figuras na coluna, encolhidas no máximo à metade (ver também figuras.test.mjs);
// - nenhum erro no console, nenhum erro do MathJax;
// - axe-core: nenhuma violação séria ou crítica; o sublinhado dos números calculados
//   com contraste de 3:1 (WCAG 1.4.11) nos dois modos;
// - nenhum texto do tema em inglês; um campo de busca só; foco visível no teclado;
// - a busca acha "atenção" digitando "atencao" e os trechos não mostram LaTeX cru.
// As falhas dizem página, elemento e largura. Fotos das páginas em LIVRO_FOTOS=pasta.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { abrirSite, HTML } from "./servidor.mjs";
import { bloquearRede } from "./chromium.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const AXE = join(RAIZ, "node_modules", "axe-core", "axe.min.js");
const FOTOS = process.env.LIVRO_FOTOS || "";
const PARALELO = Number(process.env.LIVRO_PARALELO || 2);

// Textos do tema em inglês que não podem aparecer (texto visível, title, aria-label, placeholder...).
const INGLES = [
  "Search this book", "Skip to main content", "Color mode", "Back to top", "previous page", "next page",
  "Contents", "On this page", "System Settings", "Toggle primary sidebar", "Toggle secondary sidebar",
  "Toggle navigation", "Site navigation", "Version warning", "Announcement", "Breadcrumb", "Section Navigation",
  "Download this page", "Print to PDF", "Fullscreen mode", "Source repository", "Copy to clipboard",
  "Show code cell", "Hide code cell", "Click to", "Search Results", "Searching", "Please activate JavaScript",
  "Light", "Dark", "Search", "previous", "next", "By ", "Copyright", "Theme by", "Last updated",
  "Main", "Page", "Copy", "Copied",
];
const RE_INGLES = new RegExp(`(^|[^\\p{L}])(${INGLES.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").trim()).join("|")})(?![\\p{L}])`, "u");

let navegador, servidor;
const bloqueados = [];
const paginas = []; // caminhos relativos a HTML

function acharPaginas(pasta) {
  for (const nome of readdirSync(pasta, { withFileTypes: true })) {
    const p = join(pasta, nome.name);
    if (nome.isDirectory()) { if (!nome.name.startsWith("_")) acharPaginas(p); continue; }
    if (!nome.name.endsWith(".html")) continue;
    const rel = relative(HTML, p).split("\\").join("/");
    if (rel === "index.html") continue; // só redireciona para book/index.html
    paginas.push(rel);
  }
}

abrirSite((s) => {
  ({ navegador, servidor } = s);
  assert.ok(existsSync(AXE), "falta node_modules/axe-core");
  acharPaginas(HTML);
  paginas.sort();
  if (FOTOS) mkdirSync(FOTOS, { recursive: true });
});

// Roda `fn` para cada página, no máximo PARALELO de cada vez.
async function cadaPagina(fn) {
  const fila = [...paginas];
  const obreiros = Array.from({ length: PARALELO }, async () => {
    while (fila.length) {
      const rel = fila.shift(), t0 = Date.now();
      await fn(rel);
      if (process.env.LIVRO_TEMPOS) console.log(`# ${rel}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
  });
  await Promise.all(obreiros);
}

async function contexto({ largura, escuro = false }) {
  const ctx = await navegador.newContext({
    viewport: { width: largura, height: 900 }, colorScheme: escuro ? "dark" : "light",
    isMobile: largura < 500, hasTouch: largura < 500, deviceScaleFactor: 1,
  });
  await bloquearRede(ctx, bloqueados);
  return ctx;
}

// Abre a página, espera o MathJax terminar e as imagens carregarem; devolve os erros do console.
async function abrir(ctx, rel) {
  const pg = await ctx.newPage();
  const erros = [];
  pg.on("console", (m) => { if (m.type() === "error") erros.push(m.text()); });
  pg.on("pageerror", (e) => erros.push(`pageerror: ${e.message}`));
  pg.on("response", (r) => { if (r.status() >= 400) erros.push(`${r.status()}: ${r.url()}`); });
  await pg.goto(servidor.url + rel, { waitUntil: "load" });
  await pg.evaluate(async () => {
    if (window.MathJax?.startup?.promise) await window.MathJax.startup.promise;
    // tema.js mede o que rola de lado seção por seção, perto da tela: aqui, todas já
    if (window.livroRolagem?.tudo) await window.livroRolagem.tudo();
    await Promise.all([...document.images].map((i) => i.complete ? null : new Promise((ok) => { i.onload = i.onerror = ok; })));
  });
  // Um widget perto da tela começa o Python já na carga (e já guardado por outra página, na
  // hora): quando fica pronto, ele se redesenha e o texto abaixo desce. Medir (ou rodar o axe)
  // no meio disso mede o lugar errado; então espera o Python acabar de carregar, se começou.
  await pg.waitForFunction(() => globalThis.livroWidgets?.estado?.() !== "carregando", null, { timeout: 120_000 });
  return { pg, erros };
}

// ---------------------------------------------------------------------------
// Medidas dentro da página (rodam no navegador).

function medirLargura(celular) {
  const desc = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    const cls = [...el.classList].slice(0, 2);
    if (cls.length) s += "." + cls.join(".");
    const sec = el.closest("section[id]");
    const texto = (el.textContent || "").replace(/\s+/g, " ").trim().slice(0, 50);
    return `${s}${sec ? ` (seção #${sec.id})` : ""}${texto ? ` «${texto}»` : ""}`;
  };
  const problemas = [];
  const largura = window.innerWidth;
  const extra = document.documentElement.scrollWidth - largura;
  if (extra > 1) problemas.push(`a página inteira rola de lado (${extra} px)`);
  const raiz = document.querySelector(".bd-main") || document.body;
  const rola = (cs) => cs.overflowX === "auto" || cs.overflowX === "scroll";
  const vistos = new Set();
  for (const el of raiz.querySelectorAll("*")) {
    if (el.closest("mjx-assistive-mml, .visually-hidden, .sr-only")) continue;
    // Dentro de uma fórmula só conta a fórmula em destaque inteira (os pedaços do MathJax
    // e as fórmulas no meio do texto passam alguns px da própria caixa, o itálico).
    if (el.closest("mjx-container") && !(el.tagName === "MJX-CONTAINER" && el.getAttribute("display") === "true")) continue;
    if (el.matches("span.math")) continue;
    if (el instanceof SVGElement && el.tagName.toLowerCase() !== "svg") continue;
    if (el.clientWidth === 0) continue;
    const sobra = el.scrollWidth - el.clientWidth;
    if (sobra <= 2) continue;
    const cs = getComputedStyle(el);
    if (cs.display === "none" || cs.visibility === "hidden") continue;
    // Um elemento dentro de outro já apontado: o de fora basta.
    let pai = el.parentElement, dentroDeRolagem = false, jaVisto = false;
    while (pai && pai !== raiz) {
      if (vistos.has(pai)) jaVisto = true;
      if (rola(getComputedStyle(pai))) dentroDeRolagem = true;
      pai = pai.parentElement;
    }
    if (jaVisto) continue;
    if (!celular) {
      vistos.add(el);
      problemas.push(`${desc(el)}: ${sobra} px mais largo que a coluna (rola de lado)`);
    } else if (rola(cs)) {
      // Rola, mas precisa mostrar que rola: a sombra de fundo do livro.css (atrás do conteúdo).
      vistos.add(el);
      if (!cs.backgroundAttachment.includes("local")) problemas.push(`${desc(el)}: rola ${sobra} px sem mostrar que rola`);
      if (el.tabIndex < 0 && !el.querySelector("a, button, input, [tabindex]")) {
        problemas.push(`${desc(el)}: rola ${sobra} px mas o teclado não chega nele`);
      }
    } else if (!dentroDeRolagem) {
      vistos.add(el);
      problemas.push(`${desc(el)}: ${sobra} px cortados ou vazando, fora de um contêiner que rola`);
    }
  }
  // Figuras: cabem na coluna; encolhidas, no máximo à metade (senão o texto some).
  // (tests/navegador/figuras.test.mjs confere as de lab/paginas.py, que não encolhem.)
  for (const img of document.querySelectorAll(".bd-article img")) {
    if (!img.naturalWidth || img.closest(".livro-widget, .lv-diagrama") || img.offsetParent === null) continue;
    const w = img.getBoundingClientRect().width;
    if (w < 0.5 * img.naturalWidth) {
      problemas.push(`imagem ${img.alt ? `«${img.alt.slice(0, 50)}»` : img.src.split("/").pop()}: ` +
        `${Math.round(w)} px na tela, ${img.naturalWidth} px de verdade (encolhida demais)`);
    }
  }
  return problemas;
}

function medirTextos(re) {
  const problemas = new Set();
  const artigo = document.querySelector(".bd-article");
  // Texto visível fora do artigo (o tema) e os rótulos de qualquer lugar.
  const caminhante = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = caminhante.nextNode(); n; n = caminhante.nextNode()) {
    const el = n.parentElement;
    if (!el || (artigo && artigo.contains(el)) || el.closest("script, style, template, noscript")) continue;
    const m = n.textContent.match(re);
    if (m) problemas.add(`texto «${m[2]}» em <${el.tagName.toLowerCase()} class="${el.className}">`);
  }
  for (const t of document.querySelectorAll("svg title")) {
    const m = t.textContent.match(re);
    if (m) problemas.add(`<title> «${t.textContent}» num ícone`);
  }
  for (const el of document.querySelectorAll("[title], [aria-label], [placeholder], [data-bs-title], [alt], [data-tooltip]")) {
    for (const a of ["title", "aria-label", "placeholder", "data-bs-title", "alt", "data-tooltip"]) {
      const v = el.getAttribute(a);
      const m = v && v.match(re);
      if (m) problemas.add(`${a}="${v}" em <${el.tagName.toLowerCase()}>`);
    }
  }
  return [...problemas];
}

// Contraste do sublinhado pontilhado dos números calculados contra o fundo (≥ 3:1).
function medirSublinhado() {
  const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const fundo = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const problemas = new Set();
  for (const el of document.querySelectorAll(".bd-article span.pasted-text")) {
    const cs = getComputedStyle(el);
    if (cs.borderBottomStyle === "none" || el.offsetParent === null) continue;
    const a = lum(rgb(cs.borderBottomColor)), b = lum(fundo(el));
    const razao = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (razao < 3) problemas.add(`sublinhado de número calculado com contraste ${razao.toFixed(2)}:1 (< 3:1)`);
  }
  return [...problemas];
}

// regras: só estas; sem: todas, menos as de `fora`. Tabelas longas (a página de todos os
// números tem centenas de linhas do mesmo estilo): o axe olha as 40 primeiras linhas.
async function axe(pg, { regras, fora = [] } = {}) {
  // Todas as seções desenhadas: com content-visibility: auto (livro.css), uma seção longe da tela
  // fica com a altura provisória, e o axe, que acha o fundo de um texto pelo que está no ponto
  // dele, às vezes achava ali outra coisa (o fundo cinza do widget, duas seções acima) e acusava
  // um contraste que o leitor nunca vê. As cores não mudam com isso; só o axe passa a ver as caixas.
  await pg.addStyleTag({ content: ".bd-article section > section { content-visibility: visible !important; }" });
  await pg.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await pg.addScriptTag({ path: AXE });
  return pg.evaluate(async ({ regras, fora }) => {
    const opcoes = { resultTypes: ["violations"] };
    if (regras) opcoes.runOnly = { type: "rule", values: regras };
    else opcoes.rules = Object.fromEntries(fora.map((r) => [r, { enabled: false }]));
    const r = await window.axe.run({ include: [document], exclude: [["tbody > tr:nth-child(n+41)"]] }, opcoes);
    return r.violations.filter((v) => ["serious", "critical"].includes(v.impact))
      // com o porquê do axe (ex.: as cores e o contraste medidos), para uma falha se explicar sozinha
      .map((v) => `axe ${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ") +
        (n.any?.[0]?.message ? ` [${n.any[0].message}]` : "")).join(" | ")}` +
        `${v.nodes.length > 3 ? ` e mais ${v.nodes.length - 3}` : ""}`);
  }, { regras, fora });
}

async function mathjax(pg) {
  return pg.evaluate(() => {
    const n = document.querySelectorAll("mjx-merror, .MathJax_Error, [data-mjx-error]").length;
    const txt = /Math input error|Undefined control sequence|Missing (open|close) brace/.test(
      document.querySelector(".bd-article")?.textContent || "");
    return n || txt ? [`MathJax: ${n} fórmula(s) com erro${txt ? " (mensagem de erro no texto)" : ""}`] : [];
  });
}

async function foto(pg, rel, sufixo) {
  if (!FOTOS) return;
  await pg.screenshot({ path: join(FOTOS, `${rel.replace(/\//g, "_").replace(/\.html$/, "")}-${sufixo}.png`),
    fullPage: true, timeout: 120_000 });
}

function relatorio(problemas) {
  const linhas = Object.entries(problemas).filter(([, v]) => v.length)
    .flatMap(([pagina, v]) => v.map((p) => `${pagina}: ${p}`));
  assert.deepEqual(linhas, [], `\n${linhas.join("\n")}\n`);
}

// ---------------------------------------------------------------------------
test("1280 px, modos claro e escuro: largura, figuras, console, MathJax, axe, contraste, português, busca única", async () => {
  const ctx = await contexto({ largura: 1280 });
  const problemas = {};
  await cadaPagina(async (rel) => {
    const { pg, erros } = await abrir(ctx, rel);
    try {
      const p = [];
      p.push(...(await pg.evaluate(medirLargura, false)).map((s) => `1280 px: ${s}`));
      p.push(...await mathjax(pg));
      p.push(...(await pg.evaluate(medirTextos, RE_INGLES)).map((s) => `inglês: ${s}`));
      p.push(...(await pg.evaluate(medirSublinhado)).map((s) => `modo claro: ${s}`));
      const buscas = await pg.evaluate(() => [...document.querySelectorAll(
        ".search-button-field, form.bd-search:not(#pst-search-dialog form)")]
        .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().width > 0).length);
      // a página da busca tem o seu próprio campo, no texto
      if (buscas !== (rel === "search.html" ? 2 : 1)) p.push(`1280 px: ${buscas} campos de busca visíveis (deveria ser 1)`);
      await foto(pg, rel, "1280");
      p.push(...(await axe(pg)).map((s) => `1280 px: ${s}`));
      // A mesma página no modo escuro (o tema troca só o atributo; nada recarrega). Sem as
      // transições de cor do tema, senão o axe mede cores no meio do caminho.
      await pg.addStyleTag({ content: "*, *::before, *::after { transition: none !important; }" });
      await pg.evaluate(() => { document.documentElement.dataset.theme = "dark"; document.documentElement.dataset.mode = "dark"; });
      p.push(...(await pg.evaluate(medirSublinhado)).map((s) => `modo escuro: ${s}`));
      await foto(pg, rel, "escuro");
      p.push(...(await axe(pg, { regras: ["color-contrast", "link-in-text-block"] })).map((s) => `modo escuro: ${s}`));
      p.push(...erros.map((e) => `console: ${e}`));
      problemas[rel] = p;
    } finally {
      await pg.close();
    }
  });
  await ctx.close();
  relatorio(problemas);
});

test("390 px, modo claro: nada cortado, figuras, console, axe", async () => {
  const ctx = await contexto({ largura: 390 });
  const problemas = {};
  await cadaPagina(async (rel) => {
    const { pg, erros } = await abrir(ctx, rel);
    try {
      const p = [];
      p.push(...(await pg.evaluate(medirLargura, true)).map((s) => `390 px: ${s}`));
      p.push(...(await pg.evaluate(medirTextos, RE_INGLES)).map((s) => `inglês: ${s}`));
      await foto(pg, rel, "390");
      // o contraste não muda com a largura: já foi visto a 1280 px
      p.push(...(await axe(pg, { fora: ["color-contrast"] })).map((s) => `390 px: ${s}`));
      p.push(...erros.map((e) => `console: ${e}`));
      problemas[rel] = p;
    } finally {
      await pg.close();
    }
  });
  await ctx.close();
  relatorio(problemas);
});

test("modo escuro do sistema: o tema segue", async () => {
  const ctx = await contexto({ largura: 1280, escuro: true });
  const { pg, erros } = await abrir(ctx, "book/index.html");
  const modo = await pg.evaluate(() => document.documentElement.dataset.theme);
  await ctx.close();
  assert.equal(modo, "dark", "o tema não seguiu o modo escuro do sistema");
  assert.deepEqual(erros, []);
});

test("foco visível no teclado", async () => {
  const ctx = await contexto({ largura: 1280 });
  const { pg } = await abrir(ctx, "book/qkv.html");
  const semFoco = [];
  for (let i = 0; i < 25; i++) {
    await pg.keyboard.press("Tab");
    const r = await pg.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const cs = getComputedStyle(el);
      const visivel = (cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) >= 1) || cs.boxShadow !== "none";
      return { visivel, el: `${el.tagName.toLowerCase()}${el.className ? "." + String(el.className).split(" ")[0] : ""} «${(el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 30)}»` };
    });
    if (r && !r.visivel) semFoco.push(r.el);
  }
  await ctx.close();
  assert.deepEqual(semFoco, [], `sem foco visível: ${semFoco.join("; ")}`);
});

test("busca: 'atencao' acha 'atenção'; trechos sem LaTeX cru", async () => {
  const ctx = await contexto({ largura: 1280 });
  const { pg, erros } = await abrir(ctx, "search.html?q=atencao");
  await pg.waitForFunction(() => document.querySelector("#search-results .search-summary")?.textContent.trim(),
    null, { timeout: 30_000 });
  // espera os trechos (cada resultado busca a sua página)
  await pg.waitForFunction(() => {
    const itens = document.querySelectorAll("#search-results ul.search li");
    return itens.length && [...itens].every((li) => li.querySelector("p.context")) ;
  }, null, { timeout: 30_000 }).catch(() => {});
  const r = await pg.evaluate(() => ({
    n: document.querySelectorAll("#search-results ul.search li").length,
    trechos: [...document.querySelectorAll("#search-results p.context")].map((p) => p.textContent),
    texto: document.querySelector("#search-results")?.textContent || "",
  }));
  await ctx.close();
  assert.ok(r.n > 0, `'atencao' não achou nada: ${r.texto.slice(0, 200)}`);
  assert.ok(r.trechos.some((t) => /atenção/i.test(t)), "nenhum trecho mostra a palavra 'atenção'");
  const crus = r.trechos.filter((t) => /\\[a-zA-Z]+|\$\$|\\\(|\\\[/.test(t));
  assert.deepEqual(crus.map((t) => t.slice(0, 120)), [], "trechos com LaTeX cru");
  assert.deepEqual(erros, []);
});

test("nenhum pedido saiu de 127.0.0.1", () => {
  assert.deepEqual(bloqueados.filter((u) => !u.startsWith("data:")), []);
});
