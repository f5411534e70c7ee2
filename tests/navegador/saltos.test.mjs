// Saltos de "Nesta página" e #fragmentos (issue 49): o título cai no topo da tela, a 1280 e
// a 390 px, mesmo com as seções longe da tela ainda sem desenho (content-visibility: auto).
// - 1280 px: cada página, cada entrada do "Nesta página" clicada do alto da página recém-aberta;
//   depois um leitor que clica em todas, na ordem, e volta à primeira (o salto para cima);
// - 390 px: cada página aberta já com o #fragmento da última entrada, e um #fragmento trocado
//   na barra de endereço (hashchange) para cada outra entrada.
// "No topo": o alto do título entre 0 e 140 px (abaixo do cabeçalho fixo do tema); a última
// seção, curta, pode não subir até lá: vale o título visível com a página rolada até o fim.
import { test } from "node:test";
import assert from "node:assert/strict";
import { abrirSite, HTML, paginasDoLivro } from "./servidor.mjs";
import { bloquearRede } from "./chromium.mjs";

const PAGINAS = paginasDoLivro();
const TOPO = 140;

let navegador, servidor;
abrirSite(async (s) => {
  ({ navegador, servidor } = s);
});

// No navegador: espera a rolagem parar (dois quadros sem mudar) e diz onde está o título.
async function ondeCaiu(id) {
  const quadro = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 30)));
  let y = -1;
  for (let i = 0; i < 60 && y !== scrollY; i++) { y = scrollY; await quadro(); await quadro(); }
  const alvo = document.getElementById(id);
  const titulo = alvo.matches("section") ? alvo.querySelector("h1, h2, h3, h4") || alvo : alvo;
  const top = Math.round(titulo.getBoundingClientRect().top);
  // no fim da página não há como subir mais: vale o título visível com a página no fim
  const noFim = scrollY >= document.documentElement.scrollHeight - innerHeight - 2 && top > 0 && top < innerHeight - 80;
  return noFim ? 0 : top;
}

const fora = (top) => top < -1 || top > TOPO;

// O clique do leitor na entrada; uma entrada de 3º nível, recolhida enquanto a sua seção não
// está na tela, recebe o clique pelo próprio link (o mesmo evento, a mesma ação).
async function clicar(pg, id) {
  const link = pg.locator(`.bd-sidebar-secondary nav a[href='#${id}']`).first();
  if (await link.isVisible()) await link.click();
  else await link.evaluate((a) => a.click());
}

test("1280 px: cada clique do 'Nesta página' põe o título no topo", async () => {
  const ctx = await navegador.newContext({ viewport: { width: 1280, height: 800 } });
  await bloquearRede(ctx);
  const erros = [];
  let cliques = 0;
  for (const nome of PAGINAS) {
    const pg = await ctx.newPage();
    await pg.goto(`${servidor.url}book/${nome}.html`, { waitUntil: "load" });
    const ids = await pg.$$eval(".bd-sidebar-secondary nav a[href^='#']", (as) => as.map((a) => a.getAttribute("href").slice(1)));
    // cada entrada a partir do alto da página recém-aberta (o caso em que mais seções estão
    // sem desenho), e depois todas em sequência, voltando à primeira
    for (const id of ids) {
      await pg.goto(`${servidor.url}book/${nome}.html`, { waitUntil: "load" });
      await clicar(pg, id);
      cliques++;
      const top = await pg.evaluate(ondeCaiu, decodeURIComponent(id));
      if (fora(top)) erros.push(`${nome}#${id} (do alto): o título ficou a ${top} px do topo`);
    }
    for (const id of [...ids, ids[0]].filter(Boolean)) {
      await clicar(pg, id);
      cliques++;
      const top = await pg.evaluate(ondeCaiu, decodeURIComponent(id));
      if (fora(top)) erros.push(`${nome}#${id}: o título ficou a ${top} px do topo`);
    }
    await pg.close();
  }
  await ctx.close();
  assert.ok(cliques > 50, `só ${cliques} cliques: o 'Nesta página' sumiu?`);
  assert.deepEqual(erros, [], `\n${erros.join("\n")}\n`);
});

test("390 px: cada #fragmento (aberto com a página ou trocado depois) põe o título no topo", async () => {
  const ctx = await navegador.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await bloquearRede(ctx);
  const erros = [];
  for (const nome of PAGINAS) {
    const pg = await ctx.newPage();
    await pg.goto(`${servidor.url}book/${nome}.html`, { waitUntil: "load" });
    const ids = await pg.$$eval(".bd-sidebar-secondary nav a[href^='#']", (as) => as.map((a) => a.getAttribute("href").slice(1)));
    if (!ids.length) { await pg.close(); continue; }
    const ultimo = ids.at(-1);
    await pg.goto(`${servidor.url}book/${nome}.html#${ultimo}`, { waitUntil: "load" });
    let top = await pg.evaluate(ondeCaiu, decodeURIComponent(ultimo));
    if (fora(top)) erros.push(`${nome}#${ultimo} (aberta assim): o título ficou a ${top} px do topo`);
    for (const id of ids.slice(0, -1)) {
      await pg.evaluate((h) => { location.hash = h; }, id);
      top = await pg.evaluate(ondeCaiu, decodeURIComponent(id));
      if (fora(top)) erros.push(`${nome}#${id}: o título ficou a ${top} px do topo`);
    }
    await pg.close();
  }
  await ctx.close();
  assert.deepEqual(erros, [], `\n${erros.join("\n")}\n`);
});
