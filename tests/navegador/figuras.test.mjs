// Figuras que cabem num celular (issue 21 §2), a 390 px, nos modos claro e escuro.
//
// Em cada página do livro:
// - nenhuma <img>, <svg> ou <figure> do texto passa da sua coluna nem fica cortada por um
//   contêiner (nenhuma figura rola de lado);
// - as figuras de lab/paginas.py (mapas de calor e barras das páginas dos passos 2 a 7)
//   cabem sem encolher: o texto delas fica no tamanho em que foi desenhado; as outras
//   podem encolher, mas não abaixo de metade;
// - o que rola (tabelas, equações longas, saídas de código) mostra que rola sem cobrir
//   nada: nenhuma máscara (mask-image) sobre o conteúdo, a sombra fica no fundo;
// - na saída dos widgets o texto quebra: só tabelas rolam;
// - (issue 49) nenhuma fórmula em destaque, tabela (do texto ou de widget) ou saída de código
//   passa da coluna: as contas trabalhadas e toda coluna que o texto cita ficam à vista; uma
//   linha de código que quebra recomeça no seu recuo (livro_ext/tema/linhas.py), nunca na coluna 0.
//   Vale também dentro dos exercícios: antes de medir, o teste abre cada resposta (os dropdowns
//   <details> e as caixas :class: dropdown do sphinx-togglebutton, pelo botão, como o leitor), e
//   uma fórmula em destaque que fique sem largura (ainda fechada, não medida) é um problema.
// Mede com todas as seções desenhadas (sem content-visibility: longe da tela, uma seção ainda
// sem desenho mediria zero).
// Fotos em LIVRO_FOTOS=pasta (sufixos 390-claro e 390-escuro).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { abrirSite, paginasDoLivro } from "./servidor.mjs";
import { bloquearRede } from "./chromium.mjs";

const FOTOS = process.env.LIVRO_FOTOS || "";
const PAGINAS = paginasDoLivro();
// As páginas cujas figuras foram desenhadas para caber sem encolher (lab/paginas.py ou a largura
// livro.paginas.LARGURA_CELULAR na própria página).
const SEM_ENCOLHER = new Set(["tokens", "embeddings", "qkv", "mascaras", "saida", "proximo_token",
  "por_que_bloco", "desde_2017", "escala"]);

let navegador, servidor;
abrirSite((s) => ({ navegador, servidor } = s));
before(() => FOTOS && mkdirSync(FOTOS, { recursive: true }));

// Roda no navegador: a lista de problemas da página.
function medir(semEncolher) {
  const problemas = [];
  const artigo = document.querySelector("article.bd-article");
  if (!artigo) return ["sem article.bd-article"];
  document.documentElement.classList.add("livro-desenhado");
  const desc = (el) => {
    const fig = el.closest("figure");
    const alt = el.getAttribute?.("alt") || fig?.id || el.closest("[id]")?.id || "";
    return `<${el.tagName.toLowerCase()}>${alt ? ` «${alt.slice(0, 50)}»` : ""}`;
  };
  const ca = artigo.getBoundingClientRect();
  const csA = getComputedStyle(artigo);
  const col = { esq: ca.left + parseFloat(csA.paddingLeft), dir: ca.right - parseFloat(csA.paddingRight) };
  const cortaX = (cs) => cs.overflowX !== "visible";

  // 1. Figuras: dentro da coluna, sem rolar, sem corte; as do lab/paginas.py sem encolher.
  const figuras = [...artigo.querySelectorAll("img, svg, figure")].filter((el) =>
    !(el instanceof SVGElement && el.ownerSVGElement) && !el.closest("mjx-container, .livro-widget, button, .btn")
    && el.getBoundingClientRect().width > 0);
  for (const el of figuras) {
    const r = el.getBoundingClientRect();
    if (r.right > col.dir + 1 || r.left < col.esq - 1) {
      problemas.push(`${desc(el)}: ${Math.round(r.width)} px, passa da coluna (${Math.round(col.dir - col.esq)} px)`);
    }
    for (let p = el.parentElement; p && p !== artigo; p = p.parentElement) {
      const cs = getComputedStyle(p);
      if (!cortaX(cs)) continue;
      const rp = p.getBoundingClientRect();
      if (p.scrollWidth > p.clientWidth + 1) problemas.push(`${desc(el)}: dentro de <${p.tagName.toLowerCase()}> que rola de lado`);
      else if (r.right > rp.right + 1) problemas.push(`${desc(el)}: cortada por <${p.tagName.toLowerCase()}>`);
    }
    if (el.tagName === "IMG" && el.naturalWidth) {
      const razao = r.width / el.naturalWidth;
      if (semEncolher && razao < 0.99) problemas.push(`${desc(el)}: encolhida a ${razao.toFixed(2)} (${el.naturalWidth} px de verdade)`);
      if (razao < 0.5) problemas.push(`${desc(el)}: encolhida a ${razao.toFixed(2)}: o texto fica pequeno demais`);
    }
  }

  // 2. Nada do texto sob uma máscara (o esmaecimento antigo cobria a última coluna).
  for (const el of artigo.querySelectorAll("*")) {
    const cs = getComputedStyle(el);
    const m = cs.maskImage || cs.webkitMaskImage || "none";
    if (m !== "none" && el.getBoundingClientRect().width > 0) problemas.push(`${desc(el)}: máscara sobre o conteúdo (${m.slice(0, 40)})`);
  }

  // 3. O que rola mostra que rola com a sombra de fundo (atrás do conteúdo).
  for (const el of artigo.querySelectorAll("*")) {
    if (el.closest("mjx-container") && el.tagName !== "MJX-CONTAINER") continue;
    const cs = getComputedStyle(el);
    if (!(cs.overflowX === "auto" || cs.overflowX === "scroll") || el.scrollWidth <= el.clientWidth + 2) continue;
    if (!cs.backgroundAttachment.includes("local")) problemas.push(`${desc(el)}: rola sem a sombra de fundo`);
  }

  // 4. Saídas de widget: só tabelas rolam; nenhuma linha de texto passa da caixa.
  for (const saida of artigo.querySelectorAll(".livro-widget .lw-saida")) {
    if (saida.scrollWidth > saida.clientWidth + 2) problemas.push(`saída de widget rola de lado (${saida.scrollWidth - saida.clientWidth} px)`);
    for (const el of saida.querySelectorAll("*")) {
      if (el.closest("table")) continue;
      if (el.scrollWidth > el.clientWidth + 2 && getComputedStyle(el).overflowX !== "visible") {
        problemas.push(`saída de widget: <${el.tagName.toLowerCase()}> «${el.textContent.trim().slice(0, 40)}» rola em vez de quebrar`);
      }
      const r = el.getBoundingClientRect(), rs = saida.getBoundingClientRect();
      if (r.width && r.right > rs.right + 1 && !el.closest("table")) {
        problemas.push(`saída de widget: <${el.tagName.toLowerCase()}> «${el.textContent.trim().slice(0, 40)}» passa da caixa`);
      }
    }
  }
  // 5. Fórmulas em destaque, tabelas e saídas de código cabem na coluna (nada rola de lado).
  const trecho = (el) => (el.querySelector("mjx-assistive-mml")?.textContent || el.textContent).replace(/\s+/g, " ").trim().slice(0, 50);
  for (const m of artigo.querySelectorAll('mjx-container[display="true"]')) {
    if (!m.getBoundingClientRect().width) { problemas.push(`fórmula «${trecho(m)}» escondida: não foi medida`); continue; }
    if (m.scrollWidth > m.clientWidth + 1) problemas.push(`fórmula «${trecho(m)}» passa da coluna (${m.scrollWidth} > ${m.clientWidth} px)`);
  }
  for (const t of artigo.querySelectorAll("table")) {
    const caixa = t.parentElement, larg = t.getBoundingClientRect().width;
    if (larg > caixa.clientWidth + 1 || larg > col.dir - col.esq + 1 || t.scrollWidth > t.clientWidth + 1) {
      const cab = [...t.querySelectorAll("th")].map((th) => th.textContent.trim()).join(" | ").slice(0, 60);
      problemas.push(`tabela «${cab}» passa da coluna (${Math.round(larg)} > ${caixa.clientWidth} px)`);
    }
  }
  for (const p of artigo.querySelectorAll(".cell_output pre")) {
    if (p.scrollWidth > p.clientWidth + 1) problemas.push(`saída «${trecho(p)}» passa da coluna`);
  }
  // 6. Código: cada linha num span com recuo; a que quebra recomeça além da coluna 0.
  for (const pre of artigo.querySelectorAll("div.highlight pre")) {
    const linhas = pre.querySelectorAll(":scope > .lc-l");
    if (!linhas.length && pre.textContent.trim()) { problemas.push(`código «${trecho(pre)}» sem as linhas com recuo`); continue; }
    const altura = parseFloat(getComputedStyle(pre).lineHeight) || 20;
    for (const l of linhas) {
      if (l.getBoundingClientRect().height > 1.5 * altura && !(parseFloat(getComputedStyle(l).paddingLeft) > 0)) {
        problemas.push(`código: a linha «${trecho(l)}» quebra e recomeça na coluna 0`);
      }
    }
  }
  // 7. Nenhum número de tabela (do texto ou de widget) partido em duas linhas ("0,9" + "43").
  for (const cel of artigo.querySelectorAll("table td, table th")) {
    const w = document.createTreeWalker(cel, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      for (const m of n.data.matchAll(/\d+(?:[,.]\d+)*/g)) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        if (new Set([...r.getClientRects()].map((q) => Math.round(q.top))).size > 1) {
          problemas.push(`tabela: o número ${m[0]} quebra no meio`);
        }
      }
    }
  }
  return problemas;
}

// Abre toda resposta escondida do artigo, como o leitor: <details> (:::{dropdown}) e as caixas
// :class: dropdown (o sphinx-togglebutton as esconde com .toggle-hidden; o botão as abre).
// Devolve quantas ficaram fechadas (deve ser 0).
function abrirRespostas() {
  const artigo = document.querySelector("article.bd-article");
  for (const d of artigo.querySelectorAll("details")) d.open = true;
  for (const b of artigo.querySelectorAll(".toggle-hidden > .admonition-title button.toggle-button, button.toggle-button.toggle-button-hidden")) b.click();
  return artigo.querySelectorAll("details:not([open]), .toggle-hidden").length;
}

for (const escuro of [false, true]) {
  const modo = escuro ? "escuro" : "claro";
  test(`390 px, modo ${modo}: figuras na coluna, nenhuma máscara sobre o conteúdo`, async () => {
    const ctx = await navegador.newContext({
      viewport: { width: 390, height: 844 }, colorScheme: escuro ? "dark" : "light",
      isMobile: true, hasTouch: true, deviceScaleFactor: 1,
    });
    await bloquearRede(ctx);
    const todos = [];
    for (const nome of PAGINAS) {
      const pg = await ctx.newPage();
      await pg.goto(`${servidor.url}book/${nome}.html`, { waitUntil: "load" });
      assert.equal(await pg.evaluate(abrirRespostas), 0, `${nome}: alguma resposta ficou fechada`);
      await pg.evaluate(async () => {
        if (window.MathJax?.startup?.promise) await window.MathJax.startup.promise;
        await Promise.all([...document.images].map((i) => i.complete ? null : new Promise((ok) => { i.onload = i.onerror = ok; })));
      });
      const tema = await pg.evaluate(() => document.documentElement.dataset.theme);
      assert.equal(tema, escuro ? "dark" : "light", `${nome}: o tema não seguiu o modo ${modo}`);
      todos.push(...(await pg.evaluate(medir, SEM_ENCOLHER.has(nome))).map((s) => `${nome} (${modo}): ${s}`));
      if (FOTOS) await pg.screenshot({ path: join(FOTOS, `${nome}-390-${modo}.png`), fullPage: true, timeout: 120_000 });
      await pg.close();
    }
    await ctx.close();
    assert.deepEqual(todos, [], `\n${todos.join("\n")}\n`);
  });
}
