// Saltos de "Nesta página" e #fragmentos (issues 49 e 55): o título cai no lugar que o tema
// reserva abaixo do cabeçalho fixo (saltos_medida.mjs: 6 px de folga), a 1280 e a 390 px, mesmo
// com as seções longe da tela ainda sem desenho (content-visibility: auto).
// - 1280 px: cada entrada clicada com o mouse na página recém-aberta (toda entrada se vê: os
//   títulos de 3º nível não ficam recolhidos); depois um leitor que clica em todas, descendo, e
//   sobe de volta; o Tab continua do título;
// - 390 px: a página aberta já com o #fragmento da última entrada; cada entrada tocada na gaveta
//   do sumário, que fecha; e um #fragmento trocado na barra de endereço (hashchange).
import { test } from "node:test";
import assert from "node:assert/strict";
import { abrirSite, paginasDoLivro } from "./servidor.mjs";
import { bloquearRede } from "./chromium.mjs";
import { medir, erro, entradas, entrada } from "./saltos_medida.mjs";

const PAGINAS = paginasDoLivro();

let navegador, servidor;
abrirSite(async (s) => {
  ({ navegador, servidor } = s);
});

const url = (nome, h = "") => `${servidor.url}book/${nome}.html${h}`;

async function anotar(pg, erros, onde, id, { foco = false } = {}) {
  const m = await pg.evaluate(medir, decodeURIComponent(id));
  const e = erro(m) || (foco && !m.foco ? "o foco não foi para o título (o Tab recomeçaria do sumário)" : null);
  if (e) erros.push(`${onde}#${id}: ${e}`);
}

// O clique do leitor: a entrada tem de estar à vista (senão, nenhum leitor a clicaria).
async function clicar(pg, erros, nome, id, tocar = false) {
  const link = entrada(pg, id);
  if (tocar) await link.waitFor({ state: "visible", timeout: 2000 }).catch(() => {}); // a gaveta abrindo
  if (!(await link.isVisible())) { erros.push(`${nome}#${id}: a entrada não se vê no sumário`); return false; }
  await (tocar ? link.tap() : link.click());
  return true;
}

test("1280 px: cada clique do 'Nesta página' põe o título no lugar", async () => {
  const ctx = await navegador.newContext({ viewport: { width: 1280, height: 800 } });
  await bloquearRede(ctx);
  const erros = [];
  let cliques = 0;
  for (const nome of PAGINAS) {
    const pg = await ctx.newPage();
    await pg.goto(url(nome), { waitUntil: "load" });
    const ids = await entradas(pg);
    // do alto da página recém-aberta (o caso em que mais seções estão sem desenho)
    for (const id of ids) {
      await pg.goto(url(nome), { waitUntil: "load" });
      if (!(await clicar(pg, erros, nome, id))) continue;
      cliques++;
      await anotar(pg, erros, `${nome} (do alto)`, id, { foco: true });
    }
    // todas em sequência, descendo, e de volta, subindo
    for (const id of [...ids, ...[...ids].reverse().slice(1)]) {
      if (!(await clicar(pg, erros, nome, id))) continue;
      cliques++;
      await anotar(pg, erros, nome, id);
    }
    await pg.close();
  }
  await ctx.close();
  assert.deepEqual(erros, [], `\n${erros.join("\n")}\n`);
  assert.ok(cliques > 150, `só ${cliques} cliques: o 'Nesta página' sumiu?`);
});

test("390 px: o #fragmento ao abrir, cada toque na gaveta e cada #fragmento trocado põem o título no lugar", async () => {
  const ctx = await navegador.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await bloquearRede(ctx);
  const erros = [];
  let toques = 0;
  for (const nome of PAGINAS) {
    const pg = await ctx.newPage();
    await pg.goto(url(nome), { waitUntil: "load" });
    const ids = await entradas(pg);
    if (!ids.length) { await pg.close(); continue; }
    const ultimo = ids.at(-1);
    await pg.goto(url(nome, `#${ultimo}`), { waitUntil: "load" });
    await anotar(pg, erros, `${nome} (aberta assim)`, ultimo);
    for (const id of ids) {
      await pg.locator("button.secondary-toggle").first().tap();
      if (!(await clicar(pg, erros, nome, id, true))) { await pg.keyboard.press("Escape"); continue; }
      toques++;
      await anotar(pg, erros, `${nome} (gaveta)`, id);
      if (await pg.locator("dialog[open]").count()) await pg.keyboard.press("Escape"); // (já anotado)
    }
    for (const id of ids.slice(0, -1)) {
      await pg.evaluate((h) => { location.hash = h; }, id);
      await anotar(pg, erros, nome, id);
    }
    await pg.close();
  }
  await ctx.close();
  assert.deepEqual(erros, [], `\n${erros.join("\n")}\n`);
  assert.ok(toques > 150, `só ${toques} toques na gaveta: o sumário do celular sumiu?`);
});
