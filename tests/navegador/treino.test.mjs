// O widget "treino" no Chromium: o laço ao vivo de book/_static/widgets/treino.js (começar anda
// sozinho, pausar para, recomeçar volta ao passo 0) e o primeiro estado igual ao do build.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { servir } from "./servidor.mjs";
import { launch, bloquearRede } from "./chromium.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const HTML = resolve(process.env.LIVRO_HTML || join(RAIZ, "_build", "html"));
const ESPERA = 120_000; // carregar o Pyodide numa máquina ocupada

let navegador, servidor, pg;
const passo = async () => Number(/Passo (\d+) de/.exec(await pg.locator("#widget-treino .lw-saida").textContent())[1]);
const livre = () => pg.waitForFunction(() => document.querySelector("#widget-treino").dataset.ocupado === "0",
  null, { timeout: ESPERA });

before(async () => {
  assert.ok(existsSync(join(HTML, "book", "treino.html")), `sem ${HTML}/book/treino.html: rode make book`);
  servidor = await servir(HTML);
  navegador = await launch();
  const ctx = await navegador.newContext();
  await bloquearRede(ctx);
  pg = await ctx.newPage();
  await pg.goto(`${servidor.url}book/treino.html`);
  await pg.locator("#widget-treino").scrollIntoViewIfNeeded();
  await pg.waitForFunction(() => /Pronto/.test(document.querySelector("#widget-treino .lw-status").textContent),
    null, { timeout: ESPERA });
  await livre();
});

after(async () => {
  await navegador?.close();
  await servidor?.fechar?.();
});

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
