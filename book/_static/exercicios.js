// Os exercícios conferidos (o widget exercicio:<id>, lab/livro/widgets/exercicio.py), lado da página.
// Não fala com o Python: só observa o que widgets.js põe na saída de cada exercício.
//   - o enunciado de outra versão (no <div data-lx-enunciado hidden> da saída) vai para o lugar
//     do enunciado, acima do campo;
//   - um veredito data-veredito="certo" marca o exercício como resolvido no localStorage deste
//     aparelho (nunca enviado), e a página mostra "2 de 3 resolvidos"; o progresso pode ser apagado;
//   - Enter no campo da resposta confere (clica no "Conferir"), e digitar não pede nada ao Python;
//   - na abertura, [data-lx-resumo] mostra o progresso de cada página.
(() => {
"use strict";
const CHAVE = "livro-exercicios-v1";

function ler() {
  try { return JSON.parse(localStorage.getItem(CHAVE) || "{}") || {}; } catch { return {}; }
}
function gravar(d) {
  try { localStorage.setItem(CHAVE, JSON.stringify(d)); } catch { /* sem armazenamento: só nesta visita */ }
}
function apagar() {
  try { localStorage.removeItem(CHAVE); } catch { /* nada guardado */ }
  atualizar();
}

// os de uma lista (data-lx-modo) chegam depois, e a página da lista os liga (lista.js)
const exercicios = [...document.querySelectorAll("[data-exercicio]:not([data-lx-modo])")];
let barra = null;

function botaoApagar() {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "lw-botao lx-apagar";
  b.textContent = "Apagar meu progresso";
  b.addEventListener("click", apagar);
  return b;
}

function atualizar() {
  const feitos = ler();
  if (barra) {
    const n = exercicios.filter((w) => feitos[w.dataset.exercicio]).length;
    barra.firstChild.textContent = `${n} de ${exercicios.length} exercícios conferidos resolvidos nesta página ` +
      "(guardado só neste aparelho). ";
  }
  for (const w of exercicios) w.classList.toggle("lx-resolvido", Boolean(feitos[w.dataset.exercicio]));
  const resumo = document.querySelector("[data-lx-resumo]");
  if (resumo) mostrarResumo(resumo, feitos);
}

function mostrarResumo(el, feitos) {
  let paginas;
  try { paginas = JSON.parse(el.dataset.lxResumo); } catch { return; }
  let lista = el.querySelector("ul");
  if (!lista) {
    lista = document.createElement("ul");
    el.append(lista, botaoApagar());
  }
  lista.replaceChildren(...paginas.map((p) => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `${p.pagina}.html`;
    a.textContent = p.titulo;
    li.append(a, `: ${p.ids.filter((i) => feitos[i]).length} de ${p.ids.length} resolvidos`);
    return li;
  }));
}

function observar(w) {
  const saida = w.querySelector(".lw-saida");
  const enunciado = w.querySelector(".lx-enunciado");
  const campo = () => w.querySelector('input[name="resposta"][type="text"]');
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
    if (v && v.dataset.veredito === "certo") {
      const d = ler();
      if (!d[w.dataset.exercicio]) {
        d[w.dataset.exercicio] = 1;
        gravar(d);
        atualizar();
      }
    }
  }).observe(saida, { childList: true, subtree: true });
}

// a página da lista (lista.js) liga assim os exercícios que chegam depois da carga
globalThis.livroExercicios = { observar };
if (exercicios.length) {
  barra = document.createElement("p");
  barra.className = "lx-progresso";
  barra.setAttribute("aria-live", "polite");
  barra.append(document.createTextNode(""), botaoApagar());
  exercicios[0].before(barra);
  exercicios.forEach(observar);
}
atualizar();
addEventListener("storage", (ev) => { if (ev.key === CHAVE || ev.key === null) atualizar(); });
})();
