// A abertura do worker dos widgets, embutida no começo do <head> das páginas com widget
// (book/_ext/widgets.py a põe lá, com __WIDGETS__ trocado pelos nomes deles).
//
// livroAbrir(widgets, inicio, opcoes): lê o manifesto do runtime (sempre revalidado: um site novo
// tem outra versão) e abre o worker dessa versão, de preferência compartilhado entre as
// páginas (SharedWorker com extendedLifetime: o Python carregado numa página continua vivo
// quando o leitor passa para a seguinte); sem SharedWorker, um Worker comum. Manda "iniciar"
// e devolve o canal, com as mensagens que chegarem antes de alguém as ouvir na fila; ou
// { erro } com a mensagem para o leitor. widgets.js usa esta mesma função; opcoes.compartilhado
// (false) pede um Worker comum.
//
// Partida antecipada: se o runtime já está no Cache API (o leitor viu outra página com
// widget), o worker abre aqui, enquanto o HTML ainda chega; widgets.js (defer) adota o canal.
// Sem runtime guardado, não abre nada: numa página fria o Python só carrega quando um widget
// aparece. As mesmas condições do widgets.js (LIVRO_WIDGETS, file://).
(() => {
  const cfg = Object.assign({ modo: "visivel", ocioso: true, paradoMs: 20000, compartilhado: true },
    globalThis.LIVRO_WIDGETS);
  if (location.protocol === "file:") return;
  const raiz = document.documentElement.dataset.content_root || "";
  const url = (caminho) => new URL(raiz + "_static/" + caminho, location.href);
  globalThis.livroAbrir = async (widgets, inicio, opcoes) => {
    let m;
    try {
      const r = await fetch(url("pyodide/manifesto.json"), { cache: "no-cache" });
      if (r.status === 404) {
        return { erro: "O site não tem o runtime do Python (_static/pyodide/manifesto.json): o build não terminou." };
      }
      if (!r.ok) return { erro: `Não deu para buscar a lista do runtime do Python (HTTP ${r.status}).` };
      m = await r.json();
    } catch (e) {
      return { erro: `Não deu para buscar o runtime do Python (${e.message}).` };
    }
    const c = { fila: [], inicio, aoMsg: null, aoErro: null, ouviu: false };
    const erro = (ev) => (c.aoErro ? c.aoErro(ev) : c.fila.push({ erro: ev }));
    const msg = ({ data }) => { c.ouviu = true; if (c.aoMsg) c.aoMsg(data); else c.fila.push({ data }); };
    const endereco = url(`widgets/worker.mjs?v=${m.versao}`);
    const iniciar = { tipo: "iniciar", paradoMs: cfg.paradoMs, widgets, manifesto: m };
    const comum = () => {
      const w = new Worker(endereco, { type: "module" });
      w.onerror = erro;
      w.onmessage = msg;
      c.enviar = (d) => w.postMessage(d);
      c.fechar = () => w.terminate();
      c.compartilhado = false;
      c.enviar(iniciar);
    };
    let sw = null;
    if (cfg.compartilhado && opcoes?.compartilhado !== false && globalThis.SharedWorker) {
      try {
        sw = new SharedWorker(endereco, { type: "module", name: `livro-python-${m.versao}`, extendedLifetime: true });
      } catch {
        sw = null; // um navegador que recusa o SharedWorker: segue com um Worker comum
      }
    }
    if (!sw) {
      comum();
      return c;
    }
    // Um SharedWorker que falha antes de dizer qualquer coisa (um navegador sem módulos em
    // SharedWorker, por exemplo) dá lugar a um Worker comum; depois disso, a falha é do worker.
    sw.onerror = (ev) => {
      if (c.ouviu || !c.compartilhado) return erro(ev);
      try { comum(); } catch { erro(ev); }
    };
    sw.port.onmessage = msg;
    c.enviar = (d) => sw.port.postMessage(d);
    c.fechar = () => sw.port.close();
    c.compartilhado = true;
    c.enviar(iniciar);
    return c;
  };
  if (cfg.modo !== "visivel" || !cfg.ocioso || !globalThis.caches || !globalThis.Worker) return;
  const inicio = performance.now();
  globalThis.livroPartida = caches.has("livro-runtime")
    .then((tem) => (tem ? globalThis.livroAbrir(__WIDGETS__, inicio) : null))
    .catch(() => null);
})();
