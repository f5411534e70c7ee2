// A página da lista (book/lista.md; o Python em lab/livro/widgets/lista.py). O widget `lista` abre
// a lista do aluno pelo link (a consulta deste endereço) e devolve os exercícios já na versão dele;
// o `entrega` gera o código de entrega. Este arquivo não confere nada. Ele:
//   (o campo escondido "link" dos dois widgets vai com a consulta do endereço: data-consulta, em widgets.js)
//   - tira os exercícios da saída do `lista` e os liga (widgets.js e exercicios.js);
//   - guarda cada resposta só neste aparelho (localStorage, por lista e matrícula) e a devolve ao
//     campo numa visita seguinte; mantém o campo escondido "respostas" do `entrega`;
//   - copia o código de entrega.
(() => {
"use strict";
const lista = document.querySelector('[data-widget="lista"]');
const entrega = document.querySelector('[data-widget="entrega"]');
if (!lista || !entrega) return;
const PREFIXO = "livro-lista-v1:";
const saida = lista.querySelector(".lw-saida");
// A resposta do Python pode ter chegado antes deste arquivo (o worker de outra página já estava pronto):
// só o aviso do build é trocado, e os exercícios que já estão na saída são ligados logo abaixo.
if (location.search.length > 1 && location.protocol !== "file:" && saida.querySelector("[data-lx-sem-link]")) {
  saida.innerHTML = '<p class="lx-lista-aviso">Abrindo a sua lista: o Python do navegador está carregando…</p>';
}
const lugar = document.createElement("div");
lugar.className = "lx-lista-lugar";
lista.after(lugar);
let chave = null;

function ler() {
  try { return JSON.parse(localStorage.getItem(PREFIXO + chave) || "{}") || {}; } catch { return {}; }
}
function gravar(d) {
  try { localStorage.setItem(PREFIXO + chave, JSON.stringify(d)); } catch { /* sem armazenamento: só nesta visita */ }
}
const campo = (w) => w.querySelector("form").elements.resposta;

function atualizar() {
  const r = {};
  for (const w of lugar.querySelectorAll("[data-exercicio]")) r[w.dataset.exercicio] = String(campo(w)?.value ?? "");
  entrega.querySelector('input[name="respostas"]').value = JSON.stringify(r);
  if (chave !== null) gravar(r);
}

function devolver(w, valor) {
  const el = campo(w);
  if (!el || !valor) return;
  if (el instanceof RadioNodeList) for (const r of el) r.checked = r.value === valor;
  else el.value = valor;
}

function ligar() {
  const novos = saida.querySelector("[data-lx-itens]");
  if (!novos) return;
  if (chave !== null) { novos.remove(); return; } // o Python recomeçou: os exercícios já estão na página
  chave = saida.querySelector("[data-lx-chave]").dataset.lxChave;
  const guardadas = ler();
  for (const w of novos.querySelectorAll(":scope > [data-exercicio]")) {
    lugar.append(w);
    devolver(w, guardadas[w.dataset.exercicio]);
    globalThis.livroWidgets?.adicionar(w);
    globalThis.livroExercicios?.observar(w);
  }
  novos.remove();
  atualizar();
}
new MutationObserver(ligar).observe(saida, { childList: true, subtree: true });
ligar();

// na captura: o exercicios.js para o `input` do campo da resposta no próprio widget
lugar.addEventListener("input", atualizar, true);
lugar.addEventListener("change", atualizar, true);

entrega.addEventListener("click", async (ev) => {
  const bt = ev.target.closest && ev.target.closest("[data-lx-copiar]");
  if (!bt) return;
  const texto = entrega.querySelector("[data-lx-codigo]");
  try {
    await navigator.clipboard.writeText(texto.value);
    bt.textContent = "Copiado";
  } catch {
    texto.focus();
    texto.select();
    bt.textContent = "Selecionado: copie com Ctrl+C (ou toque e segure)";
  }
});
})();
