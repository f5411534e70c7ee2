// A busca (issue 49): a página sobre a palavra vem primeiro; os trechos mostram a palavra
// buscada, nunca uma extensão de arquivo (a lista de downloads) nem "…" no lugar da fórmula;
// a lupa do campo fica fora do texto digitado.
import { test } from "node:test";
import assert from "node:assert/strict";
import { abrirSite, HTML } from "./servidor.mjs";
import { bloquearRede } from "./chromium.mjs";

let navegador, servidor, ctx;
abrirSite(async (s) => {
  ({ navegador, servidor } = s);
  ctx = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
  await bloquearRede(ctx);
}, { arquivo: "search.html" });

// Os resultados de uma consulta: [{ titulo, trecho }], na ordem da página.
async function buscar(q) {
  const pg = await ctx.newPage();
  await pg.goto(`${servidor.url}search.html?q=${encodeURIComponent(q)}`, { waitUntil: "load" });
  await pg.waitForFunction(() => document.querySelector("#search-results .search-summary")?.textContent.trim(),
    null, { timeout: 30_000 });
  await pg.waitForFunction(() => {
    const itens = document.querySelectorAll("#search-results ul.search li");
    return itens.length && [...itens].every((li) => li.querySelector("p.context"));
  }, null, { timeout: 30_000 });
  const r = await pg.evaluate(() => [...document.querySelectorAll("#search-results ul.search li")].map((li) => ({
    titulo: li.querySelector("a").textContent.trim(),
    trecho: li.querySelector("p.context").textContent.replace(/\s+/g, " ").trim(),
  })));
  await pg.close();
  return r;
}

const extensao = /\.(ipynb|pdf|md|py|zip)\b/;

test("'temperatura': o passo 7 (que tem a seção 'A temperatura') antes da saída, que só a cita", async () => {
  const r = await buscar("temperatura");
  const i7 = r.findIndex((x) => x.titulo === "O próximo token");
  const iSaida = r.findIndex((x) => x.titulo === "A saída");
  assert.equal(i7, 0, r.map((x) => x.titulo).join(" | "));
  assert.ok(iSaida > i7, r.map((x) => x.titulo).join(" | "));
});

test("'top-p': nenhum trecho é uma extensão de arquivo; o do passo 7 mostra 'top-p'", async () => {
  const r = await buscar("top-p");
  assert.ok(r.length > 0);
  assert.deepEqual(r.filter((x) => extensao.test(x.trecho) || x.trecho.length < 4).map((x) => `${x.titulo}: ${x.trecho}`), []);
  assert.match(r.find((x) => x.titulo === "O próximo token")?.trecho || "", /top-p/);
});

test("'cache KV': os trechos das páginas que falam do cache de KV mostram 'KV'", async () => {
  const r = await buscar("cache KV");
  for (const titulo of ["O próximo token", "O que mudou desde 2017", "Glossário e notação"]) {
    const x = r.find((y) => y.titulo === titulo);
    assert.ok(x, `${titulo} não veio`);
    assert.match(x.trecho, /KV/, `${titulo}: ${x.trecho}`);
  }
});

test("'softmax': a fórmula do trecho vira texto, não '…'", async () => {
  const r = await buscar("softmax");
  const trecho = (titulo) => r.find((x) => x.titulo === titulo)?.trecho || "";
  assert.match(trecho("O bloco"), /softmax\s*\(\s*S\s*\+\s*M\s*\)/);
  // "…o softmax de S+M" no glossário; "pelo mesmo número T>0" no passo 7
  assert.match(trecho("Glossário e notação"), /softmax de S\s*\+\s*M/);
  assert.match(trecho("O próximo token"), /número T\s*>\s*0/);
});

test("a lupa do campo de busca fica antes do texto, sem cobrir a 1ª letra", async () => {
  const pg = await ctx.newPage();
  await pg.goto(`${servidor.url}search.html?q=temperatura`, { waitUntil: "load" });
  const m = await pg.evaluate(() => {
    const form = [...document.querySelectorAll("form.bd-search")].find((f) => f.offsetParent !== null);
    const icone = form.querySelector(".fa-magnifying-glass").getBoundingClientRect();
    const campo = form.querySelector("input");
    const r = campo.getBoundingClientRect();
    return { icone: icone.right, texto: r.left + parseFloat(getComputedStyle(campo).paddingLeft) };
  });
  await pg.close();
  assert.ok(m.icone <= m.texto, `a lupa termina em ${m.icone} px, o texto começa em ${m.texto} px`);
});
