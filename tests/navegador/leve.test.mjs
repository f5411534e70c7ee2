// Páginas leves, num Chromium de celular sem rede (precisa do site: make book).
//
// - O peso antes de interagir: a abertura, os sete passos e o laboratório ficam em
//   ≤ 400 KB gzip-equivalentes (gzip -9 de cada arquivo que o navegador pediu; os bytes
//   são determinísticos: conta-se o que a página pede, não o tempo);
// - nenhum pedido do Font Awesome inteiro, do MathJax ou do searchindex.js antes de o
//   leitor interagir, em nenhuma página;
// - os ícones do tema aparecem (desenhados pelo subconjunto da fonte) e cada botão tem nome;
// - abrir a busca pede o índice; "atencao" põe Máscaras e cabeças entre os 3 primeiros, e o
//   trecho de cada resultado é a frase com a palavra.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { abrirSite, HTML } from "./servidor.mjs";
import { bloquearRede } from "./chromium.mjs";
import { pesar, ORCAMENTO_PAGINA } from "./peso.mjs";

const COM_ORCAMENTO = ["index", "tokens", "embeddings", "qkv", "mascaras", "bloco", "saida", "proximo_token",
  "laboratorio"].map((p) => `book/${p}.html`);

let navegador, servidor;
abrirSite(async (s) => {
  ({ navegador, servidor } = s);
});

function todasAsPaginas(pasta, lista = []) {
  for (const e of readdirSync(pasta, { withFileTypes: true })) {
    const p = join(pasta, e.name);
    if (e.isDirectory()) { if (!e.name.startsWith("_")) todasAsPaginas(p, lista); }
    else if (e.name.endsWith(".html") && e.name !== "search.html") lista.push(relative(HTML, p).split("\\").join("/"));
  }
  return lista.sort();
}

test("peso antes de interagir ≤ 400 KB; nada de Font Awesome, MathJax ou searchindex.js", async () => {
  const problemas = [];
  for (const rel of todasAsPaginas(HTML)) {
    const p = await pesar(navegador, servidor.url + rel, HTML, { espera: 800 });
    if (COM_ORCAMENTO.includes(rel) && p.total > ORCAMENTO_PAGINA) {
      problemas.push(`${rel}: ${Math.round(p.total / 1000)} KB (> ${ORCAMENTO_PAGINA / 1000} KB); maiores: ` +
        p.arquivos.slice(0, 4).map((a) => `${a.caminho} ${Math.round(a.gz / 1000)} KB`).join(", "));
    }
    if (p.proibidos.length) problemas.push(`${rel}: pediu antes de interagir ${p.proibidos.join(", ")}`);
  }
  assert.deepEqual(problemas, []);
});

test("ícones visíveis e botões com nome", async () => {
  const ctx = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
  await bloquearRede(ctx);
  const problemas = [];
  for (const rel of ["book/index.html", "book/bloco.html"]) {
    const pg = await ctx.newPage();
    await pg.goto(servidor.url + rel, { waitUntil: "load" });
    problemas.push(...await pg.evaluate(async () => {
      await document.fonts.ready;
      const p = [];
      const fa = [...document.fonts].filter((f) => /Font Awesome/.test(f.family) && f.status === "loaded");
      if (!fa.length) p.push("nenhuma fonte do Font Awesome carregou");
      for (const i of document.querySelectorAll("i[class*='fa-'], span[class*='fa-']")) {
        const alvo = i.closest("button, a, label, [role=button]");
        if (!alvo || alvo.closest("[hidden], .d-none") || !alvo.getClientRects().length) continue;
        const antes = getComputedStyle(i, "::before");
        if (antes.content === "none" || !/Font Awesome/.test(antes.fontFamily)) p.push(`ícone sem glifo: ${i.className}`);
        if (i.getAttribute("aria-hidden") !== "true") p.push(`ícone sem aria-hidden: ${i.className}`);
        const nome = (alvo.getAttribute("aria-label") || alvo.getAttribute("title") ||
          alvo.getAttribute("data-bs-title") || alvo.textContent || "").trim();
        if (!nome) p.push(`botão sem nome: ${alvo.outerHTML.slice(0, 80)}`);
      }
      return p;
    }));
    await pg.close();
  }
  await ctx.close();
  assert.deepEqual([...new Set(problemas)], []);
});

test("abrir a busca pede o índice; 'atencao' põe Máscaras e cabeças entre os 3 primeiros", async () => {
  const ctx = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
  await bloquearRede(ctx);
  const pg = await ctx.newPage();
  const pedidos = [];
  pg.on("request", (r) => pedidos.push(new URL(r.url()).pathname));
  await pg.goto(servidor.url + "book/bloco.html", { waitUntil: "load" });
  await pg.waitForTimeout(300);
  assert.ok(!pedidos.some((u) => u.endsWith("searchindex.js")), "o índice veio antes de abrir a busca");
  await pg.locator(".search-button-field").first().click();
  await pg.waitForTimeout(500);
  assert.ok(pedidos.some((u) => u.endsWith("searchindex.js")), "abrir a busca não pediu o índice");

  await pg.goto(servidor.url + "search.html?q=atencao", { waitUntil: "load" });
  await pg.waitForFunction(() => {
    const itens = document.querySelectorAll("#search-results ul.search li");
    return itens.length > 2 && [...itens].slice(0, 3).every((li) => li.querySelector("p.context"));
  }, null, { timeout: 30_000 });
  const r = await pg.evaluate(() => [...document.querySelectorAll("#search-results ul.search li")].map((li) => ({
    titulo: li.querySelector("a").textContent.trim(), trecho: li.querySelector("p.context")?.textContent || "",
  })));
  await ctx.close();
  const top3 = r.slice(0, 3).map((x) => x.titulo);
  assert.ok(top3.some((t) => t.startsWith("Máscaras e cabeças")), `3 primeiros: ${top3.join(" | ")}`);
  for (const { titulo, trecho } of r.slice(0, 3)) {
    assert.match(trecho, /atenç/i, `${titulo}: trecho sem a palavra: «${trecho}»`);
    assert.ok(trecho.length <= 250, `${titulo}: trecho longo demais (${trecho.length})`);
    assert.doesNotMatch(trecho, /Passo \d de 7|Recebe:|Você está aqui/, `${titulo}: o trecho é o roteiro da página`);
  }
});
