// Os exercícios conferidos no site construído, num Chromium sem rede (só 127.0.0.1).
//
// Precisa do site pronto (make book; ou LIVRO_HTML=pasta). Digita uma resposta (pelo teclado:
// Enter confere), vê o data-veredito, o diagnóstico de um erro típico, a mensagem de uma
// entrada hostil, "outra versão" trocando o enunciado, o progresso no localStorage (e o
// apagar), o resumo na abertura e, sem JavaScript, o enunciado e a resposta no dropdown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { abrirSite } from "./servidor.mjs";
import { bloquearRede, rolarAte } from "./chromium.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PYTHON = process.env.PYTHON || join(RAIZ, ".venv", "bin", "python");
const ESPERA = 90_000;
const DO_TEMA = [/THEBE_JS_URL/, /invalid theme mode/i];

let navegador, servidor, contexto, ref;

abrirSite(async (s) => {
  ({ navegador, servidor } = s);
  // o gabarito e um erro típico de tokens-1, calculados na hora pelo CPython (nada copiado aqui)
  ref = JSON.parse(execFileSync(PYTHON, ["-c", [
    "import json; from livro.exercicios import versao",
    "v = versao('tokens-1'); e = v.erros[0]",
    "print(json.dumps({'certo': v.resposta_txt, 'erro': v.texto(e.valor), 'nome': e.nome}))"].join("\n")],
  { encoding: "utf8" }));
  contexto = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
  await bloquearRede(contexto);
}, { arquivo: join("_static", "exercicios.js") });

async function abrir(caminho, ctx = contexto) {
  const pg = await ctx.newPage();
  const erros = [];
  pg.on("console", (m) => { if (m.type() === "error") erros.push(m.text()); });
  pg.on("pageerror", (e) => erros.push(`pageerror: ${e.message}`));
  await pg.goto(servidor.url + caminho);
  return { pg, erros };
}

async function pronto(pg, w) {
  await rolarAte(w);
  await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null,
    { timeout: ESPERA });
  await pg.waitForFunction((el) => el.dataset.ocupado === "0", await w.elementHandle(), { timeout: 10_000 });
}

async function responde(pg, w, texto) {
  const campo = w.locator('input[name="resposta"]');
  await campo.fill("");
  await campo.focus();
  await pg.keyboard.type(texto);
  const antes = await w.locator(".lw-saida").innerHTML();
  await pg.keyboard.press("Enter");
  await pg.waitForFunction(([el, h]) => el.innerHTML !== h && el.querySelector("[data-veredito]"),
    [await w.locator(".lw-saida").elementHandle(), antes], { timeout: 10_000 });
  return w.locator("[data-veredito]");
}

test("digitar, conferir pelo teclado, diagnóstico, entrada hostil, outra versão e progresso", async () => {
  const { pg, erros } = await abrir("book/tokens.html");
  const w = pg.locator('[data-exercicio="tokens-1"]');
  await pronto(pg, w);
  assert.match(await pg.locator(".lx-progresso").textContent(), /^0 de 3 /);

  let v = await responde(pg, w, ref.erro);
  assert.equal(await v.getAttribute("data-veredito"), "errado");
  assert.match(await v.textContent(), new RegExp(ref.nome));

  v = await responde(pg, w, "<script>alert(1)</script>");
  assert.equal(await v.getAttribute("data-veredito"), "invalido");
  assert.match(await v.textContent(), /não é um número/);

  v = await responde(pg, w, ` ${ref.certo} `);
  assert.equal(await v.getAttribute("data-veredito"), "certo");
  assert.equal(await w.locator(".lw-saida").getAttribute("aria-live"), "polite");
  assert.match(await pg.locator(".lx-progresso").textContent(), /^1 de 3 /);
  // o progresso (book/_static/revisao.js): resolvido, e na revisão (o erro de antes volta amanhã)
  const [guardado, hoje] = await pg.evaluate(() => [JSON.parse(localStorage.getItem("livro-exercicios-v2")),
    livroRevisao.dia(Date.now())]);
  assert.deepEqual(guardado, { "tokens-1": { errou: hoje, passo: 0, volta: hoje + 1, resolvido: 1, certo: hoje } });

  // outra versão: o enunciado acima do campo muda, e a semente aparece no campo "Versão"
  const enunciado = await w.locator(".lx-enunciado").textContent();
  await w.locator('button[data-acao="outra"]').click();
  await pg.waitForFunction((el) => /^\d+$/.test(el.value), await w.locator('input[name="semente"]').elementHandle(),
    { timeout: 10_000 });
  await pg.waitForFunction(([el, t]) => el.textContent !== t, [await w.locator(".lx-enunciado").elementHandle(), enunciado],
    { timeout: 10_000 });

  // o progresso pode ser apagado
  await pg.locator(".lx-progresso button").click();
  assert.match(await pg.locator(".lx-progresso").textContent(), /^0 de 3 /);
  assert.equal(await pg.evaluate(() => localStorage.getItem("livro-exercicios-v2")), null);
  assert.deepEqual(erros.filter((e) => !DO_TEMA.some((r) => r.test(e))), []);
  await pg.close();
});

test("a página do treino: livro.exercicios.treino roda no Pyodide (certo, erro típico, outra versão)", async () => {
  const r = JSON.parse(execFileSync(PYTHON, ["-c", [
    "import json; from livro.exercicios import versao",
    "v = versao('treino-1'); e = [x for x in v.erros if x.nome == 'sinal trocado'][0]",
    "w = versao('treino-3')",
    "print(json.dumps({'certo': v.resposta_txt, 'erro': v.texto(e.valor), 'vetor': w.resposta_txt}))"].join("\n")],
  { encoding: "utf8" }));
  const { pg, erros } = await abrir("book/treino.html");
  const w = pg.locator('[data-exercicio="treino-1"]');
  await pronto(pg, w);
  let v = await responde(pg, w, r.erro);
  assert.equal(await v.getAttribute("data-veredito"), "errado");
  assert.match(await v.textContent(), /sinal trocado/);
  v = await responde(pg, w, r.certo.replace("-", "−"));
  assert.equal(await v.getAttribute("data-veredito"), "certo");
  // o vetor de treino-3 e uma outra versão, que refaz a ida e a volta no navegador
  const w3 = pg.locator('[data-exercicio="treino-3"]');
  await pronto(pg, w3);
  v = await responde(pg, w3, r.vetor);
  assert.equal(await v.getAttribute("data-veredito"), "certo");
  const enunciado = await w3.locator(".lx-enunciado").textContent();
  await w3.locator('button[data-acao="outra"]').click();
  await pg.waitForFunction(([el, t]) => el.textContent !== t && /∂L\/∂E/.test(el.textContent),
    [await w3.locator(".lx-enunciado").elementHandle(), enunciado], { timeout: 20_000 });
  assert.deepEqual(erros.filter((e) => !DO_TEMA.some((x) => x.test(e))), []);
  await pg.close();
});

test("a abertura resume o progresso deste aparelho (o {id: 1} da versão 1 ainda vale)", async () => {
  const { pg } = await abrir("book/index.html");
  await pg.evaluate(() => {
    localStorage.removeItem("livro-exercicios-v2"); // os testes de cima o escreveram
    localStorage.setItem("livro-exercicios-v1", JSON.stringify({ "tokens-1": 1, "saida-2": 1 }));
  });
  await pg.reload();
  const itens = await pg.locator("[data-lx-resumo] li").allTextContents();
  assert.ok(itens.some((t) => /Passo 1: tokens: 1 de 3 resolvidos/.test(t)), itens.join(" | "));
  assert.ok(itens.some((t) => /Passo 6: a saída: 1 de \d+ resolvidos/.test(t)), itens.join(" | "));
  await pg.close();
});

test("sem JavaScript: o enunciado e a resposta no dropdown, sem o campo", async () => {
  const ctx = await navegador.newContext({ javaScriptEnabled: false });
  const pg = await ctx.newPage();
  await pg.goto(servidor.url + "book/saida.html");
  const w = pg.locator('[data-exercicio="saida-1"]');
  assert.equal(await w.locator(".lw-form").isVisible(), false);
  assert.equal(await w.locator(".lx-enunciado").isVisible(), true);
  assert.equal(await w.locator("details.lx-resolucao summary").textContent(), "Resposta");
  await ctx.close();
});
