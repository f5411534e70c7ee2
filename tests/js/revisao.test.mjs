// A revisão dos exercícios (book/_static/revisao.js) no Node, sem navegador: a escada de 1, 3 e 7
// dias, a migração do {id: 1}, o código do progresso (ida e volta, estragado, hostil) e a junção.
// O mesmo arquivo roda na página (tests/navegador/revisao.test.mjs o usa lá).
import { test } from "node:test";
import assert from "node:assert/strict";

await import("../../book/_static/revisao.js");
const R = globalThis.livroRevisao;
const D = 20400; // um dia qualquer

test("o dia vira à meia-noite do fuso do aparelho", () => {
  const noite = new Date(2026, 2, 10, 23, 59).getTime();
  const manha = new Date(2026, 2, 11, 0, 1).getTime();
  assert.equal(R.dia(manha), R.dia(noite) + 1);
  assert.equal(R.dia(new Date(2026, 2, 10, 0, 0).getTime()), R.dia(noite));
});

test("errou: volta amanhã; acertos na revisão: 3 e 7 dias; depois sai", () => {
  let r = R.errou({}, D);
  assert.deepEqual(r, { errou: D, passo: 0, volta: D + 1 });
  assert.deepEqual(R.paraRevisar({ a: r }, D).hoje, []);
  assert.deepEqual(R.paraRevisar({ a: r }, D + 1).hoje, ["a"]);
  r = R.acertou(r, D); // na mesma visita, antes do dia: não é revisão
  assert.deepEqual(r, { errou: D, passo: 0, volta: D + 1, resolvido: 1, certo: D });
  r = R.acertou(r, D + 1);
  assert.deepEqual([r.passo, r.volta], [1, D + 1 + 3]);
  r = R.acertou(r, D + 5); // atrasado também conta
  assert.deepEqual([r.passo, r.volta], [2, D + 5 + 7]);
  r = R.acertou(r, D + 12);
  assert.deepEqual(r, { errou: D, resolvido: 1, certo: D + 12 });
  assert.deepEqual(R.paraRevisar({ a: r }, D + 100), { hoje: [], depois: [] });
});

test("errar na revisão (ou abrir a resolução) volta ao primeiro degrau", () => {
  const r = R.errou({ resolvido: 1, certo: D, passo: 2, volta: D + 7 }, D + 7);
  assert.deepEqual(r, { resolvido: 1, certo: D, errou: D + 7, passo: 0, volta: D + 8 });
});

test("acertar de primeira não põe na revisão", () => {
  assert.deepEqual(R.acertou({}, D), { resolvido: 1, certo: D });
});

test("a ordem da revisão: os mais atrasados primeiro", () => {
  const dados = { b: { passo: 0, volta: D }, a: { passo: 1, volta: D - 2 }, c: { passo: 0, volta: D + 3 } };
  assert.deepEqual(R.paraRevisar(dados, D), { hoje: ["a", "b"], depois: ["c"] });
});

test("migrar {id: 1} guarda as marcas de resolvido", () => {
  assert.deepEqual(R.migrar({ "tokens-1": 1, "saida-2": 1, "x y": 1, "bloco-1": 0 }),
    { "tokens-1": { resolvido: 1 }, "saida-2": { resolvido: 1 } });
  assert.deepEqual(R.migrar(null), {});
  assert.deepEqual(R.migrar([1, 2]), {});
});

test("o localStorage estragado: o dado estranho sai calado", () => {
  assert.deepEqual(R.limpar({ a: { resolvido: 1, certo: "x", passo: 9, volta: 3 }, "<b>": {} }), { a: { resolvido: 1 } });
  assert.deepEqual(R.limpar("texto"), {});
});

const DADOS = {
  "tokens-1": { resolvido: 1, certo: D + 1, errou: D, passo: 1, volta: D + 4 },
  "saida-2": { resolvido: 1 },
  "bloco-3": { errou: D + 2, passo: 0, volta: D + 3 },
};

test("o código: ida e volta, curto, e espaços e quebras de linha no meio não atrapalham", () => {
  const c = R.codigo(DADOS);
  assert.match(c, /^LIVRO2\.[A-Za-z0-9_-]+\.[0-9a-z]{7}$/);
  assert.ok(c.length < 150, c);
  assert.deepEqual(R.ler(c), DADOS);
  assert.deepEqual(R.ler(`  ${c.slice(0, 20)}\n${c.slice(20)} `), DADOS);
  assert.deepEqual(R.ler(R.codigo({})), {});
});

test("o arquivo .json: ida e volta, com o código dentro", () => {
  const j = JSON.parse(R.arquivo(DADOS, D));
  assert.equal(j.formato, 2);
  assert.deepEqual(R.ler(R.arquivo(DADOS, D)), DADOS);
  assert.deepEqual(R.ler(j.codigo), DADOS);
});

test("um código estragado, hostil ou outra coisa: uma mensagem em português, nunca outro erro", () => {
  const c = R.codigo(DADOS);
  const meio = Math.floor(c.length / 2);
  const trocado = c.slice(0, meio) + (c[meio] === "A" ? "B" : "A") + c.slice(meio + 1);
  const casos = [
    [trocado, /estragado/], [c.slice(0, -3), /não é um código/], [c + "x", /não é um código/],
    ["<script>alert(1)</script>", /não é um código/], ["", /Cole o código/], [null, /Cole o código/],
    ['{"formato": 1}', /não é o progresso/], ["{não é json", /não é o progresso/],
    [JSON.stringify({ formato: 2, exercicios: { a: { passo: 5, volta: 1 } } }), /não reconhece/],
    [JSON.stringify({ formato: 2, exercicios: { "<img src=x>": {} } }), /não reconhece/],
    [JSON.stringify({ formato: 2, exercicios: [] }), /não reconhece/],
  ];
  for (const [texto, msg] of casos) {
    assert.throws(() => R.ler(texto), (e) => e instanceof R.ErroProgresso && msg.test(e.message), String(texto));
  }
  // com a soma certa mas o conteúdo estranho (feito à mão): também recusado
  const feito = (j) => { const b = btoa(j).replace(/=+$/, ""); return `LIVRO2.${b}.${R.soma(b)}`; };
  for (const [j, msg] of [[JSON.stringify([D, [["a", 7]]]), /não reconhece/], [JSON.stringify([D, "x"]), /estragado/],
    [JSON.stringify([-1, []]), /estragado/], ["[1,", /estragado/], [JSON.stringify([D, [[1, 1]]]), /estragado/]]) {
    assert.throws(() => R.ler(feito(j)), (e) => e instanceof R.ErroProgresso && msg.test(e.message), j);
  }
});

test("juntar: as marcas e os dias mais recentes; a volta do acontecimento mais recente", () => {
  const aqui = { "tokens-1": { resolvido: 1, certo: D + 9, passo: 2, volta: D + 16 }, "qkv-1": { errou: D, passo: 0, volta: D + 1 } };
  const j = R.juntar(aqui, DADOS);
  assert.deepEqual(j["tokens-1"], { resolvido: 1, certo: D + 9, errou: D, passo: 2, volta: D + 16 });
  assert.deepEqual(j["bloco-3"], DADOS["bloco-3"]);
  assert.deepEqual(j["qkv-1"], aqui["qkv-1"]);
  assert.deepEqual(R.juntar({}, DADOS), DADOS);
  assert.deepEqual(R.juntar(DADOS, DADOS), DADOS);
  // empate no dia: fica a volta mais cedo
  assert.deepEqual(R.juntar({ a: { errou: D, passo: 0, volta: D + 1 } }, { a: { errou: D, passo: 1, volta: D + 3 } }).a,
    { errou: D, passo: 0, volta: D + 1 });
});
