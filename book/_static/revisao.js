// A revisão dos exercícios conferidos e o código do progresso (issue 55): só funções puras, sem
// página e sem localStorage. exercicios.js as usa no navegador (globalThis.livroRevisao), e
// tests/js/revisao.test.mjs as roda no Node.
//
// O progresso é um objeto id -> registro, guardado só neste aparelho (localStorage
// "livro-exercicios-v2"). Os dias contam desde 1/1/1970, no fuso do aparelho (dia(ms)).
//   resolvido: 1       acertou alguma vez (o que a versão 1 guardava: {id: 1})
//   certo: 20429       o dia do último acerto
//   errou: 20428       o dia do último erro (ou da resolução aberta antes de acertar)
//   passo: 0, 1 ou 2   na revisão: volta INTERVALOS[passo] dias depois; sem passo, fora dela
//   volta: 20430       o dia em que o exercício volta (só com passo)
(() => {
"use strict";
const INTERVALOS = [1, 3, 7];
const DIA = 86400000;
const ID = /^[a-z0-9][a-z0-9_-]{0,59}$/;
const PREFIXO = "LIVRO2";
const MAX_DIA = 1000000; // bem depois do ano 4000

class ErroProgresso extends Error {}

// O dia de um instante (Date.now()), no fuso do aparelho: meia-noite local conta como o dia novo.
function dia(ms) {
  const d = new Date(ms);
  return Math.floor(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) / DIA);
}

// Errou (ou abriu a resolução): o exercício volta amanhã, do primeiro degrau.
function errou(r, hoje) {
  return { ...r, errou: hoje, passo: 0, volta: hoje + INTERVALOS[0] };
}

// Acertou: no dia da revisão (ou depois), sobe um degrau; do último, sai da revisão. Um acerto
// antes do dia (logo depois do erro, na mesma visita) não é revisão: a volta fica como estava.
function acertou(r, hoje) {
  const n = { ...r, resolvido: 1, certo: hoje };
  if (n.passo === undefined || hoje < n.volta) return n;
  if (n.passo + 1 >= INTERVALOS.length) {
    delete n.passo;
    delete n.volta;
    return n;
  }
  return { ...n, passo: n.passo + 1, volta: hoje + INTERVALOS[n.passo + 1] };
}

// Os ids para revisar hoje (os mais atrasados primeiro) e os que voltam depois.
function paraRevisar(dados, hoje) {
  const ids = Object.keys(dados).filter((i) => dados[i].volta !== undefined)
    .sort((a, b) => dados[a].volta - dados[b].volta || (a < b ? -1 : 1));
  return { hoje: ids.filter((i) => dados[i].volta <= hoje), depois: ids.filter((i) => dados[i].volta > hoje) };
}

// O que a versão 1 guardava ({id: 1}): só as marcas de resolvido.
function migrar(v1) {
  const n = {};
  if (!v1 || typeof v1 !== "object" || Array.isArray(v1)) return n;
  for (const [id, v] of Object.entries(v1)) if (ID.test(id) && v) n[id] = { resolvido: 1 };
  return n;
}

const eDia = (x) => Number.isInteger(x) && x >= 0 && x <= MAX_DIA;

// Só o que o livro reconhece. estrito (um código ou um arquivo): um dado estranho é um erro;
// senão (o localStorage), o dado estranho sai calado.
function limpar(dados, estrito = false) {
  const ruim = (onde) => {
    if (estrito) throw new ErroProgresso(`O progresso tem um dado que o livro não reconhece (${onde}).`);
  };
  if (!dados || typeof dados !== "object" || Array.isArray(dados)) {
    ruim("não é uma lista de exercícios");
    return {};
  }
  const n = {};
  for (const [id, r] of Object.entries(dados)) {
    if (!ID.test(id) || !r || typeof r !== "object") { ruim("um exercício"); continue; }
    const x = {};
    if (r.resolvido !== undefined) { if (r.resolvido === 1) x.resolvido = 1; else ruim(id); }
    for (const k of ["certo", "errou"]) if (r[k] !== undefined) { if (eDia(r[k])) x[k] = r[k]; else ruim(id); }
    if (r.passo !== undefined || r.volta !== undefined) {
      if (Number.isInteger(r.passo) && r.passo >= 0 && r.passo < INTERVALOS.length && eDia(r.volta)) {
        x.passo = r.passo;
        x.volta = r.volta;
      } else ruim(id);
    }
    n[id] = x;
  }
  return n;
}

// Juntar o importado ao deste aparelho: a marca e os dias mais recentes ficam; a volta vem do
// registro com o acontecimento mais recente (num empate, a que volta antes).
function juntar(a, b) {
  const n = { ...a };
  for (const [id, y] of Object.entries(b)) {
    const x = a[id] || {};
    const r = {};
    if (x.resolvido || y.resolvido) r.resolvido = 1;
    for (const k of ["certo", "errou"]) if (x[k] !== undefined || y[k] !== undefined) r[k] = Math.max(x[k] ?? -1, y[k] ?? -1);
    const t = (z) => Math.max(z.certo ?? -1, z.errou ?? -1);
    const v = (z) => z.volta ?? Infinity;
    const agenda = t(x) > t(y) || (t(x) === t(y) && v(x) <= v(y)) ? x : y;
    if (agenda.passo !== undefined) Object.assign(r, { passo: agenda.passo, volta: agenda.volta });
    n[id] = r;
  }
  return n;
}

// A soma de conferência do código (FNV-1a, 32 bits, em base 36): uma letra trocada a muda.
function soma(texto) {
  let h = 2166136261;
  for (let i = 0; i < texto.length; i++) h = Math.imul(h ^ texto.charCodeAt(i), 16777619) >>> 0;
  return h.toString(36).padStart(7, "0");
}

// O código: LIVRO2.<base64url do JSON>.<soma>. No JSON, [base, [[id, resolvido, certo, errou,
// passo, volta], ...]], os dias contados da base (o menor deles): números curtos.
function codigo(dados) {
  const ids = Object.keys(dados).sort();
  const dias = ids.flatMap((i) => [dados[i].certo, dados[i].errou, dados[i].volta]).filter((x) => x !== undefined);
  const base = dias.length ? Math.min(...dias) : 0;
  const rel = (x) => (x === undefined ? null : x - base);
  const linhas = ids.map((i) => {
    const r = dados[i];
    const l = [i, r.resolvido ? 1 : 0, rel(r.certo), rel(r.errou), r.passo ?? null, rel(r.volta)];
    while (l.length > 2 && l[l.length - 1] === null) l.pop();
    return l;
  });
  const corpo = btoa(JSON.stringify([base, linhas])).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return `${PREFIXO}.${corpo}.${soma(corpo)}`;
}

const ESTRAGADO = "O código veio estragado (uma letra mudou, sobrou ou faltou): copie-o de novo, inteiro, e cole aqui.";

function lerCodigo(texto) {
  const m = /^LIVRO2\.([A-Za-z0-9_-]+)\.([0-9a-z]{7})$/.exec(texto.replace(/\s+/g, ""));
  if (!m) {
    throw new ErroProgresso("Isto não é um código de progresso do livro: ele começa com «LIVRO2.» e é uma " +
      "linha só, de letras, números e pontos. Copie-o inteiro, do começo ao fim.");
  }
  if (soma(m[1]) !== m[2]) throw new ErroProgresso(ESTRAGADO);
  let base, linhas;
  try { [base, linhas] = JSON.parse(atob(m[1].replace(/-/g, "+").replace(/_/g, "/"))); } catch { throw new ErroProgresso(ESTRAGADO); }
  if (!eDia(base) || !Array.isArray(linhas)) throw new ErroProgresso(ESTRAGADO);
  const dados = {};
  for (const l of linhas) {
    if (!Array.isArray(l) || typeof l[0] !== "string") throw new ErroProgresso(ESTRAGADO);
    const [id, resolvido, certo, errou, passo, volta] = l;
    const abs = (x) => (x === null || x === undefined ? undefined : Number.isInteger(x) ? base + x : NaN);
    const r = { certo: abs(certo), errou: abs(errou), passo: passo ?? undefined, volta: abs(volta) };
    if (resolvido) r.resolvido = resolvido;
    dados[id] = JSON.parse(JSON.stringify(r)); // sem as chaves undefined
  }
  return limpar(dados, true);
}

// O arquivo .json do Exportar (também o código, para quem o abrir).
function arquivo(dados, hoje) {
  return JSON.stringify({
    o_que_e: "O progresso nos exercícios conferidos do livro «Transformers: do texto ao próximo token», " +
      "exportado de um aparelho. Importe-o na abertura do livro.",
    formato: 2,
    exportado_em: new Date(hoje * DIA).toISOString().slice(0, 10),
    dias: "certo, errou e volta: dias desde 1/1/1970 (no fuso do aparelho); passo 0, 1 ou 2: volta em " +
      INTERVALOS.join(", ") + " dias",
    exercicios: dados,
    codigo: codigo(dados),
  }, null, 1);
}

// O que o leitor colou (o código, ou o texto do arquivo) ou o arquivo escolhido -> o progresso.
function ler(texto) {
  const t = String(texto ?? "").trim();
  if (!t) throw new ErroProgresso("Cole o código do progresso (ou escolha o arquivo .json) antes de importar.");
  if (t.length > 200000) throw new ErroProgresso("Isto é grande demais para ser o progresso do livro.");
  if (!t.startsWith("{")) return lerCodigo(t);
  let j;
  try { j = JSON.parse(t); } catch { j = null; }
  if (!j || j.formato !== 2 || typeof j.exercicios !== "object") {
    throw new ErroProgresso("Este arquivo não é o progresso exportado pelo livro (o .json do botão «Exportar o progresso»).");
  }
  return limpar(j.exercicios, true);
}

globalThis.livroRevisao = { INTERVALOS, ErroProgresso, dia, errou, acertou, paraRevisar, migrar, limpar, juntar,
  soma, codigo, lerCodigo, arquivo, ler };
})();
