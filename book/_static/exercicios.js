// Os exercícios conferidos (o widget exercicio:<id>, lab/livro/widgets/exercicio.py), lado da página.
// Não fala com o Python: só observa o que widgets.js põe na saída de cada exercício.
//   - o enunciado de outra versão (no <div data-lx-enunciado hidden> da saída) vai para o lugar
//     do enunciado, acima do campo;
//   - o veredito vai para o progresso, no localStorage deste aparelho (nunca enviado; o formato e
//     a revisão de 1, 3 e 7 dias estão em revisao.js): "certo" resolve o exercício (e, no dia da
//     revisão, o leva ao degrau seguinte); "errado", ou a resolução aberta antes de acertar, o
//     põe na revisão. A página mostra "2 de 3 resolvidos"; o progresso pode ser apagado;
//   - Enter no campo da resposta confere (clica no "Conferir"), e digitar não pede nada ao Python;
//   - o link da revisão (?revisar=<id>) abre aquele exercício numa versão nova;
//   - na abertura, [data-lx-resumo] mostra o que revisar hoje, o progresso de cada página e o
//     Exportar e o Importar do progresso.
(() => {
"use strict";
const R = globalThis.livroRevisao;
const CHAVE = "livro-exercicios-v2";
const ANTIGA = "livro-exercicios-v1"; // {id: 1}: lida (migrada) se a nova falta, apagada ao gravar

function ler() {
  try {
    const d = localStorage.getItem(CHAVE);
    return d !== null ? R.limpar(JSON.parse(d)) : R.migrar(JSON.parse(localStorage.getItem(ANTIGA) || "{}"));
  } catch { return {}; }
}
function gravar(d) {
  try {
    localStorage.setItem(CHAVE, JSON.stringify(d));
    localStorage.removeItem(ANTIGA);
  } catch { /* sem armazenamento: só nesta visita */ }
  atualizar();
}
// muda o registro de um exercício: f(registro, hoje) -> registro novo (R.acertou, R.errou)
function mudar(id, f) {
  const d = ler();
  d[id] = f(d[id] || {}, R.dia(Date.now()));
  gravar(d);
}
function apagar() {
  try {
    localStorage.removeItem(CHAVE);
    localStorage.removeItem(ANTIGA);
  } catch { /* nada guardado */ }
  atualizar();
}

// os de uma lista (data-lx-modo) chegam depois, e a página da lista os liga (lista.js)
const exercicios = [...document.querySelectorAll("[data-exercicio]:not([data-lx-modo])")];
let barra = null;

function botao(texto, classe, ao) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `lw-botao ${classe}`;
  b.textContent = texto;
  b.addEventListener("click", ao);
  return b;
}
const el = (tag, props = {}, ...filhos) => {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...filhos);
  return e;
};

function atualizar() {
  const dados = ler();
  const feito = (id) => Boolean(dados[id]?.resolvido);
  if (barra) {
    const n = exercicios.filter((w) => feito(w.dataset.exercicio)).length;
    barra.firstChild.textContent = `${n} de ${exercicios.length} exercícios conferidos resolvidos nesta página ` +
      "(guardado só neste aparelho). ";
  }
  for (const w of exercicios) w.classList.toggle("lx-resolvido", feito(w.dataset.exercicio));
  const resumo = document.querySelector("[data-lx-resumo]");
  if (resumo) mostrarResumo(resumo, dados);
}

const DIA_MES = new Intl.DateTimeFormat("pt-BR", { day: "numeric", month: "long", timeZone: "UTC" });
const plural = (n, um, varios) => `${n} ${n === 1 ? um : varios}`;

function mostrarResumo(raiz, dados) {
  let paginas;
  try { paginas = JSON.parse(raiz.dataset.lxResumo); } catch { return; }
  if (!raiz._partes) raiz._partes = montar(raiz);
  const { revisar, nota, lista } = raiz._partes;
  const onde = {}; // id -> [página, título da página, nome do exercício]
  for (const p of paginas) p.ids.forEach((id, k) => { onde[id] = [p.pagina, p.titulo, p.nomes?.[k] || id]; });
  const hoje = R.dia(Date.now());
  const conhecidos = Object.fromEntries(Object.entries(dados).filter(([id]) => onde[id]));
  const fila = R.paraRevisar(conhecidos, hoje);
  revisar.replaceChildren(...fila.hoje.map((id) => {
    const [pagina, titulo, nome] = onde[id];
    const a = el("a", { href: `${pagina}.html?revisar=${encodeURIComponent(id)}#widget-exercicio-${id}` }, nome);
    return el("li", { className: "lx-revisar-item" }, a, ` (${titulo})`);
  }));
  const [a, b, c] = R.INTERVALOS;
  const depois = fila.depois.length ? `${plural(fila.depois.length, "exercício volta", "exercícios voltam")} ` +
    `nos próximos dias; o próximo, no dia ${DIA_MES.format(new Date(conhecidos[fila.depois[0]].volta * 86400000))}.` : "";
  nota.textContent = fila.hoje.length
    ? `Para hoje: ${fila.hoje.length === 1 ? "1 exercício, numa versão nova" :
      `${fila.hoje.length} exercícios, cada um numa versão nova`}. ${depois}`
    : fila.depois.length ? `Nada para revisar hoje. ${depois}`
      : "Nada para revisar. Um exercício que você errar (ou cuja resolução abrir antes de acertar) volta " +
        `aqui ${a === 1 ? "no dia seguinte" : `em ${a} dias`}, numa versão nova; acertando, volta depois de ${b} ` +
        `dias e depois de ${c}.`;
  lista.replaceChildren(...paginas.map((p) => el("li", {},
    el("a", { href: `${p.pagina}.html` }, p.titulo), `: ${p.ids.filter((i) => dados[i]?.resolvido).length} de ` +
    `${p.ids.length} resolvidos`)));
}

// As partes da abertura que o JS põe uma vez: Revisar, o progresso por página e Guardar o progresso.
function montar(raiz) {
  const nota = el("p", { className: "lx-revisar-nota" });
  const revisar = el("ul", { className: "lx-revisar-lista" });
  const lista = el("ul", { className: "lx-paginas" });
  const msg = el("p", { className: "lx-msg" });
  msg.setAttribute("role", "status");
  const codigo = el("textarea", { readOnly: true, rows: 2, className: "lx-codigo-saida" });
  const baixar = el("a", { className: "lx-baixar" }, "Baixar o arquivo .json");
  const exportado = el("div", { className: "lx-exportado", hidden: true },
    el("label", { className: "lx-codigo" }, el("span", {}, "O código do seu progresso"), codigo), baixar);
  const colar = el("textarea", { rows: 2, className: "lx-codigo-entrada", spellcheck: false });
  // o campo de arquivo do navegador escreve em inglês ("Choose File"): escondido, dentro de um rótulo nosso
  const escolher = el("input", { type: "file", accept: ".json,application/json", className: "lx-so-leitor visually-hidden" });
  const diz = (texto, erro = false) => {
    msg.textContent = texto;
    msg.dataset.tipo = erro ? "erro" : "ok";
  };
  const importar = (texto) => {
    try {
      const novo = R.ler(texto);
      gravar(R.juntar(ler(), novo));
      diz(`Progresso importado: ${plural(Object.keys(novo).length, "exercício", "exercícios")}, junto com o ` +
        "que já havia neste aparelho.");
      colar.value = "";
    } catch (e) {
      diz(e instanceof R.ErroProgresso ? e.message : "Não deu para importar este progresso.", true);
    }
  };
  const exportar = () => {
    const d = ler();
    const hoje = R.dia(Date.now());
    codigo.value = R.codigo(d);
    if (baixar.href) URL.revokeObjectURL(baixar.href);
    baixar.href = URL.createObjectURL(new Blob([R.arquivo(d, hoje)], { type: "application/json" }));
    baixar.download = `progresso-transformers-${new Date(hoje * 86400000).toISOString().slice(0, 10)}.json`;
    exportado.hidden = false;
    codigo.select();
    diz("Guarde o código (ou o arquivo) num lugar seu; para voltar com o progresso, cole-o em Importar, aqui " +
      "ou em outro aparelho.");
  };
  escolher.addEventListener("change", async () => {
    const f = escolher.files[0];
    escolher.value = "";
    if (!f) return;
    if (f.size > 200000) { diz("Este arquivo é grande demais para ser o progresso do livro.", true); return; }
    let texto;
    try { texto = await f.text(); } catch { diz("Não deu para ler este arquivo.", true); return; }
    importar(texto);
  });
  raiz.append(
    el("h3", {}, "Revisar"), nota, revisar,
    el("h3", {}, "Por página"), lista, botao("Apagar meu progresso", "lx-apagar", apagar),
    el("div", { className: "lx-guardar" },
      el("h3", {}, "Guardar o progresso"),
      el("p", {}, botao("Exportar o progresso", "lx-exportar", exportar)), exportado,
      el("label", { className: "lx-codigo" }, el("span", {}, "Importar: cole aqui o código"), colar),
      el("p", {}, botao("Importar o código", "lx-importar", () => importar(colar.value)), " ou ",
        el("label", { className: "lw-botao lx-arquivo" }, "Importar um arquivo .json", escolher)),
      msg));
  return { revisar, nota, lista };
}

function observar(w) {
  const id = w.dataset.exercicio;
  const naLista = w.dataset.lxModo !== undefined; // nota de quem ensina: fora da revisão
  const saida = w.querySelector(".lw-saida");
  const enunciado = w.querySelector(".lx-enunciado");
  const campo = () => w.querySelector('input[name="resposta"][type="text"]');
  const versao = () => w.querySelector('input[name="semente"]')?.value;
  // Digitar não pede nada ao Python (só o Conferir, o Enter ou a troca de versão).
  w.addEventListener("input", (ev) => { if (ev.target === campo()) ev.stopPropagation(); }, true);
  w.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" || ev.target !== campo()) return;
    ev.preventDefault();
    const bt = w.querySelector('button[data-acao="conferir"]');
    if (bt && !bt.disabled) bt.click();
  });
  new MutationObserver(() => {
    const novo = saida.querySelector("[data-lx-enunciado]");
    if (novo && enunciado && enunciado.innerHTML !== novo.innerHTML) enunciado.innerHTML = novo.innerHTML;
    const v = saida.querySelector("[data-veredito]");
    if (!v || v._contado) return; // cada veredito conta uma vez
    v._contado = true;
    if (v.dataset.veredito === "certo") {
      w._certoNa = versao();
      mudar(id, naLista ? (r) => ({ ...r, resolvido: 1 }) : R.acertou);
    } else if (v.dataset.veredito === "errado" && !naLista) mudar(id, R.errou);
  }).observe(saida, { childList: true, subtree: true });
  // A resolução aberta antes de acertar esta versão conta como um erro (toggle não sobe: na captura).
  saida.addEventListener("toggle", (ev) => {
    if (!naLista && ev.target.matches("details.lx-resolucao") && ev.target.open && w._certoNa !== versao()) {
      mudar(id, R.errou);
    }
  }, true);
}

// O link da revisão, na abertura (tokens.html?revisar=tokens-1#widget-exercicio-tokens-1): o
// exercício volta numa versão nova, para não bastar digitar de novo o número de antes. É um clique
// em "Outra versão" (widgets.js guarda o pedido até o Python ficar pronto, e já o carrega); o
// marcador sai do endereço, e recarregar a página não sorteia outra vez.
function revisarDoEndereco() {
  const id = new URLSearchParams(location.search).get("revisar");
  const w = exercicios.find((x) => x.dataset.exercicio === id);
  const bt = w?.querySelector('button[data-acao="outra"]');
  if (!bt || bt.disabled) return;
  history.replaceState(history.state, "", location.pathname + location.hash);
  w.querySelector(".lw-titulo").after(el("p", { className: "lx-revisao-aviso" },
    "Revisão: este exercício voltou numa versão nova, com outros números. Tente sem abrir a resolução."));
  bt.click();
  requestAnimationFrame(() => w.scrollIntoView({ block: "center" }));
}

// a página da lista (lista.js) liga assim os exercícios que chegam depois da carga
globalThis.livroExercicios = { observar };
if (exercicios.length) {
  barra = document.createElement("p");
  barra.className = "lx-progresso";
  barra.setAttribute("aria-live", "polite");
  barra.append(document.createTextNode(""), botao("Apagar meu progresso", "lx-apagar", apagar));
  exercicios[0].before(barra);
  exercicios.forEach(observar);
  revisarDoEndereco();
}
atualizar();
addEventListener("storage", (ev) => { if ([CHAVE, ANTIGA, null].includes(ev.key)) atualizar(); });
})();
