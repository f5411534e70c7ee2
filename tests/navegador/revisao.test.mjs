// A revisão dos exercícios (issue 55) no site construído, com um relógio de mentira
// (context.clock.setFixedTime): errar tokens-1 hoje; amanhã a abertura o põe em "Revisar"; o link
// abre o exercício numa versão nova (a semente deixa de ser "livro"); acertar leva a volta para 3
// dias; exportar (o código e o arquivo), apagar tudo e importar dá o mesmo progresso; um código
// estragado ou hostil dá uma mensagem em português. O gabarito vem do CPython, na hora.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { abrirSite } from "./servidor.mjs";
import { bloquearRede, rolarAte } from "./chromium.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PYTHON = process.env.PYTHON || join(RAIZ, ".venv", "bin", "python");
const ESPERA = 90_000;
const DIA = 86400000;
const T0 = Date.UTC(2026, 2, 10, 15); // meio-dia em São Paulo
const DO_TEMA = [/THEBE_JS_URL/, /invalid theme mode/i];

await import("../../book/_static/revisao.js");
const R = globalThis.livroRevisao;
let servidor, contexto;

abrirSite(async (s) => {
  ({ servidor } = s);
  contexto = await s.navegador.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: "America/Sao_Paulo" });
  await bloquearRede(contexto);
  await contexto.clock.setFixedTime(T0);
}, { arquivo: join("_static", "revisao.js") });

const py = (codigo) => execFileSync(PYTHON, ["-c", `import json; from livro.exercicios import versao\n${codigo}`],
  { encoding: "utf8" }).trim();
const guardado = (pg) => pg.evaluate(() => JSON.parse(localStorage.getItem("livro-exercicios-v2")));

async function espera(pg, w) {
  await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null,
    { timeout: ESPERA });
  await pg.waitForFunction((el) => el.dataset.ocupado === "0", await w.elementHandle(), { timeout: 10_000 });
}

async function responde(pg, w, texto) {
  const saida = w.locator(".lw-saida");
  const antes = await saida.innerHTML();
  await w.locator('input[name="resposta"]').fill(texto);
  await w.locator('button[data-acao="conferir"]').click();
  await pg.waitForFunction(([el, h]) => el.innerHTML !== h && el.querySelector("[data-veredito]"),
    [await saida.elementHandle(), antes], { timeout: 10_000 });
  return w.locator("[data-veredito]").getAttribute("data-veredito");
}

test("errar, revisar no dia seguinte numa versão nova, acertar (3 dias); exportar e importar", async () => {
  const erros = [];
  const pg = await contexto.newPage();
  pg.on("pageerror", (e) => erros.push(`pageerror: ${e.message}`));
  pg.on("console", (m) => { if (m.type() === "error") erros.push(m.text()); });
  pg.on("dialog", (d) => { erros.push(`diálogo: ${d.message()}`); d.dismiss(); });
  const w = pg.locator('[data-exercicio="tokens-1"]');
  const errado = JSON.parse(py("v = versao('tokens-1'); print(json.dumps(v.texto(v.erros[0].valor)))"));

  await pg.goto(servidor.url + "book/tokens.html");
  await rolarAte(w);
  await espera(pg, w);
  assert.equal(await responde(pg, w, errado), "errado");
  const D = await pg.evaluate(() => livroRevisao.dia(Date.now()));
  assert.deepEqual(await guardado(pg), { "tokens-1": { errou: D, passo: 0, volta: D + 1 } });
  // as mesmas contas no navegador e no Node
  assert.deepEqual(await pg.evaluate(() => livroRevisao.acertou({ passo: 0, volta: 5 }, 5)), R.acertou({ passo: 0, volta: 5 }, 5));

  // hoje: nada para revisar; amanhã, o exercício na lista, com o link que pede outra versão
  await pg.goto(servidor.url + "book/index.html");
  const link = pg.locator(".lx-revisar-lista a");
  assert.equal(await link.count(), 0);
  assert.match(await pg.locator(".lx-revisar-nota").textContent(), /^Nada para revisar hoje\. 1 exercício volta/);
  await contexto.clock.setFixedTime(T0 + DIA);
  await pg.reload();
  assert.equal(await link.count(), 1);
  assert.equal(await link.getAttribute("href"), "tokens.html?revisar=tokens-1#widget-exercicio-tokens-1");
  await link.click();
  await pg.waitForURL(/tokens\.html/);
  const semente = w.locator('input[name="semente"]');
  await pg.waitForFunction((el) => /^\d+$/.test(el.value), await semente.elementHandle(), { timeout: ESPERA });
  await espera(pg, w);
  assert.equal(new URL(pg.url()).search, "", "o marcador ?revisar= ficou no endereço");
  assert.match(await w.locator(".lx-revisao-aviso").textContent(), /versão nova/);
  const certo = JSON.parse(py(`print(json.dumps(versao('tokens-1', ${Number(await semente.inputValue())}).resposta_txt))`));
  assert.equal(await responde(pg, w, certo), "certo");
  const estado = { "tokens-1": { errou: D, passo: 1, volta: D + 1 + 3, resolvido: 1, certo: D + 1 } };
  assert.deepEqual(await guardado(pg), estado);

  await pg.goto(servidor.url + "book/index.html");
  assert.equal(await link.count(), 0);
  await contexto.clock.setFixedTime(T0 + 4 * DIA);
  await pg.reload();
  assert.equal(await link.count(), 1);

  // exportar: o código e o arquivo; apagar tudo; importar cada um volta ao mesmo estado
  await pg.locator(".lx-exportar").click();
  const codigo = await pg.locator(".lx-codigo-saida").inputValue();
  assert.match(codigo, /^LIVRO2\.[\w-]+\.[0-9a-z]{7}$/);
  const [baixado] = await Promise.all([pg.waitForEvent("download"), pg.locator(".lx-baixar").click()]);
  const caminho = await baixado.path();
  assert.deepEqual(JSON.parse(readFileSync(caminho, "utf8")).exercicios, estado);
  const msg = pg.locator(".lx-msg");
  for (const importa of [
    () => pg.locator(".lx-codigo-entrada").fill(codigo).then(() => pg.locator(".lx-importar").click()),
    () => pg.locator('.lx-guardar input[type="file"]').setInputFiles(caminho),
  ]) {
    await pg.evaluate(() => localStorage.clear());
    await pg.reload();
    assert.equal(await guardado(pg), null);
    assert.match((await pg.locator(".lx-paginas li").first().textContent()), /0 de 3 resolvidos/);
    await importa();
    await pg.waitForFunction((el) => el.dataset.tipo, await msg.elementHandle());
    assert.match(await msg.textContent(), /^Progresso importado: 1 exercício/);
    assert.deepEqual(await guardado(pg), estado);
    assert.match((await pg.locator(".lx-paginas li").first().textContent()), /1 de 3 resolvidos/);
    assert.equal(await link.count(), 1);
  }

  // estragado (uma letra trocada no meio) ou hostil: a mensagem em português; nada muda
  const meio = Math.floor(codigo.length / 2);
  const trocado = codigo.slice(0, meio) + (codigo[meio] === "A" ? "B" : "A") + codigo.slice(meio + 1);
  for (const [texto, esperado] of [[trocado, /estragado/], ["<script>alert(1)</script>", /não é um código/]]) {
    await pg.locator(".lx-codigo-entrada").fill(texto);
    await pg.locator(".lx-importar").click();
    assert.match(await msg.textContent(), esperado);
    assert.equal(await msg.getAttribute("data-tipo"), "erro");
    assert.equal(await pg.locator(".lx-resumo script").count(), 0);
    assert.deepEqual(await guardado(pg), estado);
  }
  assert.deepEqual(erros.filter((e) => !DO_TEMA.some((r) => r.test(e))), []);
  await pg.close();
});

test("abrir a resolução antes de acertar esta versão põe o exercício na revisão; depois de acertar, não", async () => {
  await contexto.clock.setFixedTime(T0);
  const pg = await contexto.newPage();
  await pg.goto(servidor.url + "book/tokens.html");
  await pg.evaluate(() => localStorage.clear());
  const w = pg.locator('[data-exercicio="tokens-2"]');
  await rolarAte(w);
  await espera(pg, w);
  const D = await pg.evaluate(() => livroRevisao.dia(Date.now()));
  assert.equal(await responde(pg, w, JSON.parse(py("print(json.dumps(versao('tokens-2').resposta_txt))"))), "certo");
  await w.locator("details.lx-resolucao summary").click();
  assert.equal(await w.locator("details.lx-resolucao").getAttribute("open"), "");
  await pg.evaluate(() => new Promise((ok) => setTimeout(ok, 100))); // o toggle chega numa tarefa depois do clique
  assert.deepEqual(await guardado(pg), { "tokens-2": { resolvido: 1, certo: D } });
  await w.locator('button[data-acao="outra"]').click();
  await pg.waitForFunction((el) => /^\d+$/.test(el.value), await w.locator('input[name="semente"]').elementHandle(),
    { timeout: 10_000 });
  await espera(pg, w);
  await w.locator("details.lx-resolucao summary").click();
  await pg.waitForFunction(() => JSON.parse(localStorage.getItem("livro-exercicios-v2"))["tokens-2"].passo === 0);
  assert.deepEqual(await guardado(pg), { "tokens-2": { resolvido: 1, certo: D, errou: D, passo: 0, volta: D + 1 } });
  await pg.close();
});
