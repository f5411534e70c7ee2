// O widget "treino" no Chromium: o laço ao vivo de book/_static/widgets/treino.js (começar anda
// sozinho, pausar para, recomeçar volta ao passo 0) e o primeiro estado igual ao do build.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { abrirSite, HTML } from "./servidor.mjs";
import { bloquearRede } from "./chromium.mjs";

const ESPERA = 120_000; // carregar o Pyodide numa máquina ocupada

let navegador, servidor, pg;
const passo = async () => Number(/Passo (\d+) de/.exec(await pg.locator("#widget-treino .lw-saida").textContent())[1]);
const livre = () => pg.waitForFunction(() => document.querySelector("#widget-treino").dataset.ocupado === "0",
  null, { timeout: ESPERA });

abrirSite(async (s) => {
  ({ navegador, servidor } = s);
  const ctx = await navegador.newContext();
  await bloquearRede(ctx);
  pg = await ctx.newPage();
  await pg.goto(`${servidor.url}book/treino.html`);
  await pg.locator("#widget-treino").scrollIntoViewIfNeeded();
  await pg.waitForFunction(() => /Pronto/.test(document.querySelector("#widget-treino .lw-status").textContent),
    null, { timeout: ESPERA });
  await livre();
}, { arquivo: join("book", "treino.html") });

test("o primeiro estado no navegador é o do build (o texto da saída)", async () => {
  const build = readFileSync(join(HTML, "book", "treino.html"), "utf8");
  const linhaBuild = /Passo 0 de [^<]*/.exec(build)[0];
  assert.match(await pg.locator("#widget-treino .lw-saida").textContent(), new RegExp(linhaBuild.replace(/[()]/g, "\\$&")));
});

test("começar anda sozinho; pausar para; recomeçar volta ao passo 0", async () => {
  await pg.click('#widget-treino button[data-acao="comecar"]');
  // o laço pediu "passo" sozinho, duas vezes, sem clique nenhum do leitor
  await pg.waitForFunction(() => globalThis.livroWidgets.medidas.respostas
    .filter((m) => m.widget === "treino" && m.acao === "passo").length >= 2, null, { timeout: ESPERA, polling: 50 });
  assert.ok(await passo() >= 3);
  await pg.click('#widget-treino button[data-acao="pausar"]');
  await livre();
  await pg.waitForTimeout(300);
  await livre();
  const parado = await passo();
  assert.equal(await pg.locator("#widget-treino .lw-saida [data-continua]").count(), 0);
  await pg.waitForTimeout(1000);
  assert.equal(await passo(), parado);
  assert.ok(await pg.locator('#widget-treino button[data-acao="pausar"]').isDisabled());
  await pg.click('#widget-treino button[data-acao="recomecar"]');
  await livre();
  assert.equal(await passo(), 0);
});
