// Os widgets do livro, lado do navegador.
//
// Só liga os controles a um worker (worker.mjs) que roda o Python do livro no Pyodide,
// aberto por livroAbrir (livro_ext/widgets/partida.js, no <head>) e, quando o navegador deixa,
// compartilhado entre as páginas do livro: toda conta e todo número vêm de livro.widgets.api
// (lab/livro/widgets/api.py), o mesmo arquivo que a diretiva {widget} chama no build. A página
// já vem com os números do build; este arquivo só os troca quando o Python responde.
//
// Script clássico (não módulo) de propósito: aberta como arquivo (file://), a
// página não roda módulos, mas roda este aviso.
//
// Quando carregar: ao aparecer na tela (ou no primeiro uso); se o runtime já está no
// cache do navegador (o leitor já viu outra página com widget), logo ao abrir a página,
// porque aí não custa rede: o script do <head> (livro_ext/widgets/partida.js) já abre o worker
// enquanto o HTML chega, e este arquivo o adota. Com o worker compartilhado, o Python que a
// página anterior carregou ainda está vivo: a página só espera os widgets dela aquecerem. A
// carga mostra o progresso e só desiste quando a rede para (nenhum byte em `paradoMs`) ou
// quando o Python, já baixado, não inicia em `limiteMs`.
//
// Uma falha nunca é final: a mensagem diz em português o que houve (nunca o texto do navegador),
// os controles seguem ativos e os números do build ficam; "Tentar de novo", o evento `online`
// (a rede voltou) ou um novo toque num controle recomeçam a carga, do que já ficou guardado.
//
// Configuração opcional (testes e benchmark), antes de carregar a página:
//   window.LIVRO_WIDGETS = { modo: "visivel" | "uso", paradoMs: 20000, limiteMs: 60000, ocioso: true,
//                            compartilhado: true,  (false: um Worker comum, só desta página)
//                            respostaMs: 15000 }   (um pedido sem resposta nesse tempo: o worker
//                                                   morreu; a página abre outro, um Worker comum)
(() => {
"use strict";
const CFG = Object.assign({ modo: "visivel", paradoMs: 20000, limiteMs: 60000, respostaMs: 15000, margem: "300px",
  ocioso: true },
  globalThis.LIVRO_WIDGETS);
const widgets = [...document.querySelectorAll("[data-widget]")];
const medidas = { inicio: null, pronto: null, respostas: [], progresso: [], fases: null, bytes: null, bytecode: null,
  compartilhado: null, reutilizado: null, worker: null, reaberturas: 0, falhas: [], tentativas: 0 };
globalThis.livroWidgets = { medidas, cfg: CFG, estado: () => estado, adicionar };

// Esta carga da página: o Python guarda o cache de KV de cada widget pelo inst, e um worker
// compartilhado serve muitas cargas (uma recarga não pode herdar o estado da anterior).
const CARGA = globalThis.crypto?.randomUUID?.() ?? String(Math.random()).slice(2);
let canal = null; // o worker, pelo canal de livroAbrir
let estado = "parado"; // parado | carregando | pronto | falhou
let seq = 0;
const emEspera = new Map(); // id do pedido -> widget

function status(w, texto, tipo) {
  const s = w.querySelector(".lw-status");
  s.textContent = texto;
  s.dataset.tipo = tipo;
}

function erro(w, texto) {
  const e = w.querySelector(".lw-erro");
  e.textContent = texto || "";
  e.hidden = !texto;
  w.querySelector(".lw-saida").classList.toggle("lw-velho", Boolean(texto));
}

function todos(texto, tipo) {
  for (const w of widgets) status(w, texto, tipo);
}

function campos(form) {
  const c = {};
  for (const el of form.elements) {
    if (!el.name || el.type === "range" && el.dataset.espelho) continue;
    if (el.type === "checkbox") c[el.name] = el.checked;
    else if (el.type === "radio") { if (el.checked) c[el.name] = el.value; }
    else if (el.dataset.consulta !== undefined) c[el.name] = location.search; // a lista de um aluno: o link
    else c[el.name] = el.value;
  }
  return c;
}

function aplicar(form, c, enviados) {
  // Só o que o Python mudou: um campo que o leitor segue editando fica como está.
  for (const [nome, valor] of Object.entries(c)) {
    const el = form.elements[nome];
    if (!el || (enviados && nome in enviados && enviados[nome] === valor)) continue;
    if (el instanceof RadioNodeList) el.value = String(valor);
    else if (el.type === "checkbox") el.checked = Boolean(valor);
    else if (el.value !== String(valor)) el.value = String(valor);
  }
  for (const r of form.querySelectorAll("input[type=range][data-espelho]")) {
    const v = Number(String(form.elements[r.dataset.espelho].value).replace(",", "."));
    if (Number.isFinite(v)) r.value = String(v);
  }
}

function pedir(w, acao) {
  // Um pedido por vez em cada widget; ações entram na fila, edições se fundem.
  const f = w._fila;
  if (!acao && f.length && !f[f.length - 1].acao) f[f.length - 1].t0 = performance.now();
  else f.push({ acao: acao || null, t0: performance.now() });
  w.dataset.ocupado = "1";
  if (estado === "falhou") tentarDeNovo("uso"); // o leitor mexeu depois de uma falha: outra tentativa
  else if (estado === "parado") iniciar();
  bombear(w);
}

function bombear(w) {
  if (estado === "pronto" && !w._emVoo && !w._fila.length) w.dataset.ocupado = "0";
  if (estado !== "pronto" || w._emVoo || !w._fila.length) return;
  const item = w._fila.shift();
  const id = ++seq;
  item.campos = campos(w._form);
  w._emVoo = item;
  emEspera.set(id, w);
  clearTimeout(w._vigia);
  w._vigia = setTimeout(semResposta, CFG.respostaMs);
  canal.enviar({
    tipo: "chamar", id,
    pedido: { widget: w.dataset.widget, inst: `${w.id}@${CARGA}`, campos: item.campos, acao: item.acao },
  });
}

function resposta(id, r, pyMs) {
  const w = emEspera.get(id);
  emEspera.delete(id);
  if (!w) return;
  clearTimeout(w._vigia);
  const item = w._emVoo;
  w._emVoo = null;
  if (r.erro) erro(w, r.erro);
  else {
    erro(w, "");
    aplicar(w._form, r.campos || {}, item && item.campos);
    w.querySelector(".lw-saida").innerHTML = r.html;
    const desl = new Set(r.desligar || []);
    const rotulos = r.rotulos || {};
    for (const bt of w._form.querySelectorAll("button[data-acao]")) {
      bt.disabled = desl.has(bt.dataset.acao);
      // Um botão desligado diz por quê (o texto vem do Python, já escapado).
      if (bt.dataset.rotulo === undefined) bt.dataset.rotulo = bt.innerHTML;
      bt.innerHTML = bt.disabled && rotulos[bt.dataset.acao] ? rotulos[bt.dataset.acao] : bt.dataset.rotulo;
    }
  }
  if (item && item.t0 !== null) {
    // ms: do evento ao HTML novo no lugar; msQuadro: até o próximo quadro da tela.
    const m = { widget: w.dataset.widget, acao: item.acao, ms: performance.now() - item.t0, pyMs,
      depoisDePronto: medidas.pronto !== null && item.t0 >= medidas.pronto };
    medidas.respostas.push(m);
    requestAnimationFrame(() => { m.msQuadro = performance.now() - item.t0; });
  }
  bombear(w);
}

// Um pedido sem resposta em CFG.respostaMs (uma resposta normal leva milissegundos): o worker
// morreu (o navegador o fechou, ou a página voltou do cache de voltar/avançar com o worker
// compartilhado já fechado) ou travou. A página abre outro, um Worker comum, só dela (um
// compartilhado com o mesmo nome poderia ser o travado), e manda de novo o que estava no ar.
// Duas vezes no máximo; na terceira, desiste.
function semResposta() {
  if (estado !== "pronto") return;
  if (medidas.reaberturas >= 2) {
    falhar("O Python do navegador parou de responder.");
    return;
  }
  medidas.reaberturas++;
  const velho = canal;
  canal = null;
  estado = "parado";
  try { velho.fechar(); } catch { /* já fechado */ }
  for (const w of emEspera.values()) {
    clearTimeout(w._vigia);
    if (w._emVoo) w._fila.unshift(w._emVoo);
    w._emVoo = null;
  }
  emEspera.clear();
  iniciar(null, { compartilhado: false });
  todos("O Python do navegador parou de responder; carregando de novo…", "carregando");
}

// Uma falha: a mensagem (em português, do worker ou daqui), os números do build à vista e o
// botão "Tentar de novo". Os controles ficam ativos: mexer num deles também tenta de novo.
// detalhe: o texto técnico (em inglês, às vezes), só para os testes, nunca na tela.
function falhar(texto, detalhe) {
  estado = "falhou";
  if (canal) canal.fechar();
  canal = null;
  medidas.falhas.push({ texto, detalhe: detalhe || "", ms: performance.now() });
  const quando = navigator.onLine === false ? " A página tenta de novo sozinha quando a conexão voltar." : "";
  todos(texto + quando + " Os números abaixo são os da construção do livro.", "erro");
  for (const w of widgets) {
    w.classList.remove("livro-js"); // sem Python, mostra todas as linhas do build
    w._tentar.hidden = false;
    clearTimeout(w._vigia);
    if (w._emVoo) w._fila.unshift(w._emVoo); // o pedido no ar volta para a fila da próxima tentativa
    w._emVoo = null;
    w.dataset.ocupado = "0";
  }
  emEspera.clear();
}

// Outra tentativa depois de uma falha (o botão, a rede que voltou, um controle tocado): volta a
// "parado" e abre o worker de novo; o que já foi baixado vem do Cache API.
function tentarDeNovo(porque) {
  if (estado !== "falhou") return;
  medidas.tentativas++;
  medidas.ultimaTentativa = porque;
  medidas.reaberturas = 0;
  estado = "parado";
  for (const w of widgets) {
    w.classList.add("livro-js");
    w._tentar.hidden = true;
  }
  iniciar(null);
}

const MIB = new Intl.NumberFormat("pt-BR", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const PCT = new Intl.NumberFormat("pt-BR", { style: "percent", maximumFractionDigits: 0 });

function mostrarProgresso(p) {
  medidas.progresso.push({ t: performance.now(), rede: p.rede, cache: p.cache, total: p.total });
  const feito = p.rede + p.cache;
  if (!p.total) return;
  if (p.cache >= p.total) { todos("Carregando Python (do cache do navegador)…", "carregando"); return; }
  todos(`Carregando Python: ${MIB.format(feito / 1048576)} de ${MIB.format(p.total / 1048576)} MiB ` +
    `(${PCT.format(feito / p.total)}).` + (p.cache ? " Parte já estava guardada no navegador." : ""), "carregando");
}

// partida: o canal que o <head> já abriu (livro_ext/widgets/partida.js), com as mensagens que
// chegaram antes desta hora; null: nenhum, este arquivo abre um; undefined (a chamada de quem
// vê o widget ou mexe nele): se o <head> tentou, espera a resposta dele antes.
function iniciar(partida, opcoes) {
  if (estado !== "parado") return;
  if (partida === undefined && globalThis.livroPartida) {
    globalThis.livroPartida.then((p) => iniciar(p || null));
    return;
  }
  estado = "carregando";
  medidas.inicio = partida ? partida.inicio : performance.now();
  medidas.partida = partida ? "head" : "widgets.js";
  todos("Carregando Python…", "carregando");
  if (partida) { adotar(partida); return; }
  if (typeof globalThis.livroAbrir !== "function") {
    falhar("Esta página chegou incompleta (falta o script que abre o Python). Recarregue a página.");
    return;
  }
  globalThis.livroAbrir([...new Set(widgets.map((w) => w.dataset.widget))], medidas.inicio, opcoes)
    .then(adotar, (e) => falhar("Este navegador não conseguiu abrir o Python dos widgets.", e?.message));
}

function adotar(c) {
  if (c.erro) { falhar(c.erro, c.detalhe); return; }
  canal = c;
  medidas.compartilhado = c.compartilhado;
  medidas.antecipado = !!c.antecipado; // o worker nasceu no <head>, antes do manifesto
  medidas.criado = c.criado; // quando o worker foi criado (ms da navegação)
  let limite = null;
  // O script do worker não carregou (sem rede, e sem cópia guardada) ou quebrou: a mensagem do
  // navegador (em inglês) fica só em medidas.falhas.
  c.aoErro = (ev) => {
    clearTimeout(limite);
    falhar(navigator.onLine === false ? "Sem conexão: não deu para baixar o Python dos widgets."
      : "Não deu para carregar o Python dos widgets.", ev?.message || "erro ao carregar o script do worker");
  };
  c.aoMsg = (data) => {
    if (data.tipo === "progresso") {
      if (estado === "carregando") mostrarProgresso(data);
    } else if (data.tipo === "fase") {
      // Tudo baixado: agora é compilar e iniciar o Python, sem rede. Um limite só para isso.
      todos("Iniciando o Python…", "carregando");
      clearTimeout(limite);
      limite = setTimeout(() => {
        if (estado !== "carregando") return;
        const texto = `O Python foi baixado, mas não iniciou em ${Math.round(CFG.limiteMs / 1000)} s.`;
        c.enviar({ tipo: "desistir", mensagem: texto }); // um worker compartilhado se fecha
        falhar(texto);
      }, CFG.limiteMs);
    } else if (data.tipo === "pronto") {
      if (estado !== "carregando") return;
      clearTimeout(limite);
      estado = "pronto";
      medidas.pronto = performance.now();
      medidas.fases = data.fases;
      medidas.bytes = data.bytes;
      medidas.usouBytecode = data.bytecode;
      medidas.pacote = data.pacote; // de onde veio o Python do livro (a roda instalada)
      medidas.compartilhado = c.compartilhado; // pode ter virado um Worker comum no caminho
      medidas.reutilizado = data.reutilizado;
      medidas.worker = data.worker;
      medidas.memoria = data.memoria; // o Python veio do instantâneo da memória? usado | feito | sem
      medidas.runtime = data.runtime; // pedaços (de gzip) | descomprimido (guardado por uma carga anterior)
      medidas.wasm = data.wasm; // de onde o wasm compilou: pedaços | descomprimido | http (o cache HTTP)
      medidas.sozinho = data.sozinho; // a carga começou quando o worker nasceu, antes do "iniciar" (o manifesto guardado)
      // quando o worker começou a rodar, em ms da navegação desta página (antes dela, se veio de outra)
      medidas.nasceu = Number.isFinite(data.nasceu) ? data.nasceu - performance.timeOrigin : null;
      // o service worker (offline.js) guarda agora o que o worker buscou: o widget abre sem rede depois
      globalThis.navigator.serviceWorker?.controller?.postMessage({ tipo: "guardar", urls: [] });
      todos(data.reutilizado ? "Pronto: o Python roda no seu navegador (já estava carregado, de outra página do livro)."
        : `Pronto: o Python roda no seu navegador (carregou em ${data.segundos} s).`, "pronto");
      for (const w of widgets) {
        // Se o leitor mexeu antes do Python chegar, a fila já tem o pedido.
        if (!w._fila.length) w._fila.push({ acao: null, t0: null });
        bombear(w);
      }
    } else if (data.tipo === "bytecode") medidas.bytecode = data;
    else if (data.tipo === "instalado") { // a roda, instalada depois do "pronto" (o livro veio na memória)
      medidas.pacote = data.pacote;
      medidas.instalado = performance.now();
    } else if (data.tipo === "memoria") medidas.memoriaGuardada = performance.now(); // a próxima carga a restaura
    else if (data.tipo === "esquentado") medidas.esquentado = { ms: performance.now(), chamadas: data.chamadas };
    else if (data.tipo === "wasmHttp") medidas.wasmHttp = { ms: performance.now(), guardado: data.guardado };
    else if (data.tipo === "resposta") resposta(data.id, data.resposta, data.pyMs);
    else if (data.tipo === "falhou") {
      clearTimeout(limite);
      if (estado !== "falhou") falhar(data.mensagem, data.detalhe);
    }
  };
  // o que o worker já disse, na ordem (nenhuma mensagem chega durante este laço)
  for (const ev of c.fila.splice(0)) (ev.erro ? c.aoErro(ev.erro) : c.aoMsg(ev.data));
}

// O widget, ou a seção mais de fora que não é desenhada enquanto está longe da tela
// (content-visibility, no livro.css): dentro dela, antes do desenho, o widget nunca "aparece".
function alvo(w) {
  let a = w;
  for (let p = w.parentElement; p; p = p.parentElement) {
    if (getComputedStyle(p).contentVisibility === "auto") a = p;
  }
  return a;
}

// Cliques num controle de widget (um botão de ação, uma caixa de seleção, um rádio): o pedido
// sai já na captura em `window`, e o clique para aí. Sem isso, antes da resposta rodavam os 11
// handlers que o Bootstrap registra na captura do document: a cada clique, cada um faz um
// querySelectorAll do documento inteiro, e numa página recém-carregada eles prendiam o thread da
// página por 5–11 ms (num traço), com a resposta do worker já esperando. Nenhum deles serve a um
// controle de widget; o único que importa aqui, o que fecha um menu aberto (o de baixar esta
// página) quando se clica fora dele, é refeito à mão. Numa caixa de seleção ou num rádio, o
// estado novo já está no campo durante o clique, e o `input` (que só viria depois) não pede de
// novo; um `input` sem clique (uma seta num rádio, em algum navegador) pede como sempre. Um
// clique cancelado desfaz a marca: então sai outro pedido, com o estado de volta.
function clique(ev) {
  const el = ev.target;
  const w = el.closest && el.closest("[data-widget]");
  if (!w || !w._fila || !w._form.contains(el)) return;
  const bt = el.closest("button[data-acao]");
  if (!bt && el.type !== "checkbox" && el.type !== "radio") return;
  ev.stopPropagation();
  for (const aberto of document.querySelectorAll('[data-bs-toggle="dropdown"][aria-expanded="true"]')) aberto.click();
  if (bt) return pedir(w, bt.dataset.acao);
  const marcado = el.checked;
  el._pedidoNoClique = true;
  pedir(w, null);
  setTimeout(() => {
    el._pedidoNoClique = false;
    if (el.checked !== marcado) pedir(w, null);
  }, 0);
}

function preparar(w) {
  const form = w.querySelector("form");
  w._form = form;
  w._fila = [];
  w._emVoo = null;
  // "Tentar de novo", ao lado da mensagem de uma falha (fora do formulário: não é um pedido)
  const tentar = document.createElement("button");
  tentar.type = "button";
  tentar.className = "lw-botao lw-tentar";
  tentar.textContent = "Tentar de novo";
  tentar.hidden = true;
  tentar.addEventListener("click", () => tentarDeNovo("botão"));
  w.querySelector(".lw-status").after(tentar);
  w._tentar = tentar;
  w.classList.add("livro-js");
  for (const el of form.elements) el.disabled = false;
  form.addEventListener("submit", (ev) => { ev.preventDefault(); pedir(w, null); });
  form.addEventListener("input", (ev) => {
    const el = ev.target;
    if (el._pedidoNoClique) { el._pedidoNoClique = false; return; } // já pedido no clique
    if (el.type === "range" && el.dataset.espelho) {
      form.elements[el.dataset.espelho].value = el.value.replace(".", ",");
    }
    if (el.tagName !== "SELECT" || !el.dataset.acao) pedir(w, null);
  });
  form.addEventListener("change", (ev) => {
    if (ev.target.tagName === "SELECT" && ev.target.dataset.acao) pedir(w, ev.target.dataset.acao);
  });
  status(w, "Números da construção do livro. O Python do navegador carrega quando o widget aparece na tela.", "parado");
}

// Um widget que chegou depois da carga (os exercícios de uma lista, que o Python da página da lista
// devolve já na versão do aluno): liga os controles; com o Python pronto, ele já responde.
function adicionar(w) {
  if (widgets.includes(w) || location.protocol === "file:") return;
  widgets.push(w);
  preparar(w);
  if (estado === "pronto") {
    status(w, "Pronto: o Python roda no seu navegador.", "pronto");
    w.dataset.ocupado = "0";
  }
}

if (location.protocol === "file:") {
  for (const w of widgets) {
    w.classList.add("livro-sem-servidor");
    // Para o leitor: o que ele pode fazer, sem comando de quem desenvolve o livro.
    status(w, "Esta página foi aberta como arquivo, direto do disco, e assim o navegador não deixa o " +
      "Python carregar. Para mexer nos widgets, leia o livro no site publicado ou abra esta pasta por " +
      "um servidor local (um endereço http://). Os números abaixo são os da construção do livro.",
      "erro");
  }
} else if (widgets.length) {
  widgets.forEach(preparar);
  addEventListener("click", clique, true);
  addEventListener("online", () => tentarDeNovo("online")); // a rede voltou: tenta de novo sozinha
  if (CFG.modo === "visivel" && "IntersectionObserver" in globalThis) {
    const obs = new IntersectionObserver((entradas) => {
      if (entradas.some((e) => e.isIntersecting)) {
        obs.disconnect();
        iniciar();
      }
    }, { rootMargin: CFG.margem });
    // Um widget numa seção ainda sem desenho só é observado quando a seção chega à tela (e é
    // desenhada): o Python carrega quando o próprio widget aparece, não a seção inteira.
    const secoes = new IntersectionObserver((entradas) => {
      for (const e of entradas) {
        if (!e.isIntersecting) continue;
        secoes.unobserve(e.target);
        for (const w of widgets) if (alvo(w) === e.target) obs.observe(w);
      }
    });
    for (const w of widgets) {
      const a = alvo(w);
      if (a === w) obs.observe(w);
      else secoes.observe(a);
    }
  }
  // Runtime já guardado por outra página: o <head> (livro_ext/widgets/partida.js) já abriu o worker,
  // sem custar rede e fora da thread da página; aqui ele é adotado.
  if (globalThis.livroPartida) globalThis.livroPartida.then((p) => { if (p) iniciar(p); });
}
})();
