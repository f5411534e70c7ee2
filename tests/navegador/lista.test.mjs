// A volta inteira de uma lista de quem ensina (issue 54), no site construído, num Chromium sem rede:
// make listas (uma turma, exercícios escolhidos) -> o link de cada aluno abre a página da lista ->
// as respostas digitadas na página -> o código de entrega -> make corrige -> as notas e os erros
// contados. Os gabaritos e os erros típicos de cada versão vêm do CPython (nada copiado aqui).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { abrirSite } from "./servidor.mjs";
import { bloquearRede } from "./chromium.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PYTHON = process.env.PYTHON || join(RAIZ, ".venv", "bin", "python");
const ESPERA = 90_000;
const IDS = ["tokens-1", "embeddings-1", "mascaras-2", "proximo_token-1", "escala-2"];
const TMP = mkdtempSync(join(tmpdir(), "lista-"));
const py = (...args) => execFileSync(PYTHON, args, { encoding: "utf8", cwd: RAIZ });

let navegador, servidor, ref;

abrirSite(async (s) => {
  ({ navegador, servidor } = s);
  writeFileSync(join(TMP, "turma.csv"), "nome;matrícula\nAna Souza;A1\nBruno Lima;B2\nCarla Dias;C3\n");
  for (const [lista, conferir] of [["semana-4", "sim"], ["semana-5", "nao"]]) {
    py("-m", "livro.exercicios.listas", "--lista", lista, "--turma", join(TMP, "turma.csv"), "--exercicios",
      IDS.join(","), "--conferir", conferir, "--saida", TMP, "--site", servidor.url.replace(/\/$/, ""), "--versoes", "0");
  }
  // para cada aluno da semana-4: o link, o gabarito e o 1º erro típico de cada exercício na versão dele
  ref = JSON.parse(py("-c", [
    "import csv, json, sys; from livro.exercicios import versao; from livro.exercicios.lista import semente",
    `ids = ${JSON.stringify(IDS)}`,
    `links = {r['matricula']: r['link'] for r in csv.DictReader(open(sys.argv[1]))}`,
    "out = {}",
    "for m in links:",
    "    vs = {i: versao(i, semente('semana-4', m)) for i in ids}",
    "    out[m] = {'link': links[m], 'certo': {i: v.resposta_txt if v.tipo != 'escolha' else v.resposta for i, v in vs.items()},",
    "              'erro': {i: [v.erros[0].nome, v.texto(v.erros[0].valor) if v.tipo != 'escolha' else v.erros[0].valor]",
    "                       for i, v in vs.items() if v.erros}}",
    "print(json.dumps(out))"].join("\n"), join(TMP, "semana-4", "links.csv")));
});

async function abrirLista(url, ctx) {
  const pg = await ctx.newPage();
  const erros = [];
  pg.on("pageerror", (e) => erros.push(`pageerror: ${e.message}`));
  await pg.addInitScript(() => { globalThis.__erros = []; addEventListener("error", (e) => globalThis.__erros.push(String(e.message))); });
  await pg.goto(url);
  return { pg, erros };
}

async function esperarItens(pg, n) {
  try {
    await pg.waitForFunction((k) => document.querySelectorAll(".lx-lista-lugar [data-exercicio]").length === k
      && globalThis.livroWidgets?.estado() === "pronto", n, { timeout: ESPERA });
  } catch (e) { // o que a página mostrava, para quem depura
    throw new Error(e.message + " " + JSON.stringify(await pg.evaluate(() => ({
      estado: globalThis.livroWidgets?.estado(), falhas: globalThis.livroWidgets?.medidas.falhas,
      saida: document.querySelector('[data-widget="lista"]').textContent.slice(0, 400),
      itens: document.querySelectorAll(".lx-lista-lugar [data-exercicio]").length, href: location.href,
      todos: [...document.querySelectorAll("[data-exercicio]")].map((w) => w.parentElement.className),
      erros: globalThis.__erros }))));
  }
}

async function responder(pg, id, valor) {
  const w = pg.locator(`.lx-lista-lugar [data-exercicio="${id}"]`);
  const radio = w.locator(`input[type="radio"][value="${valor}"]`);
  if (await w.locator('input[type="radio"]').count()) await radio.check();
  else await w.locator('input[name="resposta"]').fill(valor);
  const antes = await w.locator(".lw-saida").innerHTML();
  await w.locator('button[data-acao="conferir"]').click();
  await pg.waitForFunction(([el, h]) => el.innerHTML !== h && el.querySelector("[data-veredito]"),
    [await w.locator(".lw-saida").elementHandle(), antes], { timeout: 15_000 });
  return w.locator("[data-veredito]").getAttribute("data-veredito");
}

async function gerarCodigo(pg) {
  await pg.locator('[data-widget="entrega"] button[data-acao="gerar"]').click();
  await pg.waitForSelector("[data-lx-codigo]", { timeout: 15_000 });
  return pg.locator("[data-lx-codigo]").inputValue();
}

test("a lista de um aluno: a versão dele, sem resolução nem troca de versão; o código de entrega", async () => {
  const ctx = await navegador.newContext({ viewport: { width: 390, height: 900 } });
  await bloquearRede(ctx);
  const codigos = [];
  // Ana acerta tudo; Bruno erra cada exercício com o 1º erro típico, menos o último, que fica em branco
  for (const [m, modo] of [["A1", "certo"], ["B2", "erro"]]) {
    const { pg, erros } = await abrirLista(ref[m].link, ctx);
    await esperarItens(pg, IDS.length);
    assert.equal(await pg.locator('.lx-lista-lugar button[data-acao="outra"]').count(), 0);
    assert.equal(await pg.locator(".lx-lista-lugar .lx-resolucao").count(), 0);
    assert.match(await pg.locator(".lx-lista-cabeca").textContent(), new RegExp(`matrícula ${m}`));
    for (const id of IDS.slice(0, modo === "erro" ? -1 : undefined)) {
      const valor = modo === "certo" ? ref[m].certo[id] : ref[m].erro[id][1];
      assert.equal(await responder(pg, id, String(valor)), modo === "certo" ? "certo" : "errado", `${m} ${id}`);
    }
    if (modo === "erro") { // o diagnóstico aparece na lista que confere
      const texto = await pg.locator(`[data-exercicio="${IDS[0]}"] [data-veredito]`).textContent();
      assert.match(texto, new RegExp(ref[m].erro[IDS[0]][0].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    }
    codigos.push(await gerarCodigo(pg));
    // as respostas voltam numa nova visita (só neste aparelho)
    await pg.reload();
    await esperarItens(pg, IDS.length);
    const campo = pg.locator(`.lx-lista-lugar [data-exercicio="${IDS[0]}"] input[name="resposta"]`);
    assert.equal(await campo.inputValue(), String(modo === "certo" ? ref[m].certo[IDS[0]] : ref[m].erro[IDS[0]][1]));
    assert.deepEqual(erros, []);
    await pg.close();
  }
  // um link mexido: a mensagem em português, nenhum exercício
  const { pg } = await abrirLista(ref.A1.link.replace("m=A1", "m=C3"), ctx);
  await pg.waitForSelector("[data-lx-lista-erro]", { timeout: ESPERA });
  await pg.waitForFunction(() => globalThis.livroWidgets?.estado() === "pronto", null, { timeout: ESPERA });
  assert.match(await pg.locator("[data-lx-lista-erro]").textContent(), /incompleto ou foi alterado/);
  assert.equal(await pg.locator(".lx-lista-lugar [data-exercicio]").count(), 0);
  await ctx.close();

  // make corrige: as notas e os erros contados
  writeFileSync(join(TMP, "entregas.txt"), [codigos[0], "olá, professor", codigos[1].slice(0, -4), codigos[1]].join("\n"));
  const saida = py("-m", "livro.exercicios.corrige", "--lista", "semana-4", "--turma", join(TMP, "turma.csv"),
    "--entregas", join(TMP, "entregas.txt"), "--saida", TMP);
  assert.match(saida, /linha 2: não achei um código/);
  assert.match(saida, /linha 3: o código está incompleto/);
  const notas = Object.fromEntries(readFileSync(join(TMP, "semana-4", "notas.csv"), "utf8").trim().split("\n")
    .map((l) => l.split(",")).map((c) => [c[0], c]));
  assert.deepEqual(notas.A1.slice(2), ["sim", "1", "1", "1", "1", "1", "5", "5"]);
  assert.deepEqual(notas.B2.slice(2), ["sim", "0", "0", "0", "0", "0", "0", "5"]);
  assert.equal(notas.C3[2], "não");
  const linhas = readFileSync(join(TMP, "semana-4", "respostas.csv"), "utf8").trim().split("\n").slice(1);
  for (const id of IDS.slice(0, -1)) {
    const l = linhas.find((x) => x.startsWith(`B2,`) && x.includes(`,${id},`));
    assert.ok(l.includes(`,errado,${ref.B2.erro[id][0]},`) || l.includes(`,errado,"${ref.B2.erro[id][0]}",`), l);
  }
  assert.ok(linhas.find((x) => x.startsWith("B2,") && x.includes(`,${IDS.at(-1)},`)).includes(",em branco,"));
  const rel = readFileSync(join(TMP, "semana-4", "relatorio.html"), "utf8");
  assert.match(rel, /erro típico: <strong>/);
});

test("CONFERIR=nao: o site só anota (nenhum veredito), e a entrega é corrigida igual", async () => {
  const ctx = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
  await bloquearRede(ctx);
  const link = readFileSync(join(TMP, "semana-5", "links.csv"), "utf8").split("\n").find((l) => l.startsWith("Ana"))
    .match(/"(http[^"]+)"/)[1];
  const { pg, erros } = await abrirLista(link, ctx);
  await esperarItens(pg, IDS.length);
  assert.equal(await responder(pg, "tokens-1", "abc"), "invalido"); // ilegível ainda avisa
  assert.equal(await responder(pg, "tokens-1", "7"), "anotado");
  assert.doesNotMatch(await pg.locator(".lx-lista-lugar").textContent(), /Certo|Ainda não/);
  const codigo = await gerarCodigo(pg);
  assert.match(await pg.locator('[data-widget="entrega"]').textContent(), /Nada foi enviado/);
  assert.deepEqual(erros, []);
  await ctx.close();
  writeFileSync(join(TMP, "e5.txt"), codigo + "\n");
  py("-m", "livro.exercicios.corrige", "--lista", "semana-5", "--turma", join(TMP, "turma.csv"),
    "--entregas", join(TMP, "e5.txt"), "--saida", TMP);
  const ana = readFileSync(join(TMP, "semana-5", "respostas.csv"), "utf8").split("\n").find((l) => l.startsWith("A1,"));
  assert.match(ana, /,tokens-1,[0-9A-F]{6},7,/);
});
