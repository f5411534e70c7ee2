// A abertura do worker dos widgets, embutida sem os comentários no <head> das páginas com widget e da
// abertura (widgets.py). livroAbrir(widgets, inicio, opcoes) lê o manifesto (sempre revalidado), abre o worker
// dessa versão (SharedWorker, que sobrevive à troca de página; senão Worker) e manda "iniciar"; ou { erro }.
// A partida antecipada e o runtime baixado em tempo ocioso na abertura: dev/MEDIDAS.md.
(() => {
  const cfg = Object.assign({ modo: "visivel", ocioso: true, paradoMs: 20000, compartilhado: true },
    globalThis.LIVRO_WIDGETS);
  if (location.protocol === "file:") return;
  const raiz = document.documentElement.dataset.content_root || "";
  const url = (caminho) => new URL(raiz + "_static/" + caminho, location.href);
  const VERSAO = "livro-runtime-versao"; // chave do localStorage
  // Abre o worker da versão, sem mandar nada; c.partir(msg) manda o "iniciar" (de novo ao Worker que substitui).
  const abrir = (versao, opcoes) => {
    const c = { fila: [], inicio: null, aoMsg: null, aoErro: null, ouviu: false, versao, iniciar: null,
      criado: performance.now() };
    const erro = (ev) => (c.aoErro ? c.aoErro(ev) : c.fila.push({ erro: ev }));
    const msg = ({ data }) => {
      c.ouviu = true;
      if (data?.tipo === "pronto") {
        try { localStorage.setItem(VERSAO, versao); } catch { /* sem localStorage: sem partida cedo */ }
      }
      if (c.aoMsg) c.aoMsg(data); else c.fila.push({ data });
    };
    c.partir = (m) => { c.iniciar = m; c.enviar(m); };
    const endereco = url(`widgets/worker.mjs?v=${versao}`);
    const comum = () => {
      const w = new Worker(endereco, { type: "module" });
      w.onerror = erro;
      w.onmessage = msg;
      c.enviar = (d) => w.postMessage(d);
      c.fechar = () => w.terminate();
      c.compartilhado = false;
      if (c.iniciar) c.enviar(c.iniciar);
    };
    let sw = null;
    if (cfg.compartilhado && opcoes?.compartilhado !== false && globalThis.SharedWorker) {
      try {
        sw = new SharedWorker(endereco, { type: "module", name: `livro-python-${versao}`, extendedLifetime: true });
      } catch {
        sw = null; // um navegador que recusa o SharedWorker: segue com um Worker comum
      }
    }
    if (!sw) {
      comum();
      return c;
    }
    // Um SharedWorker que falha antes de dizer qualquer coisa dá lugar a um Worker comum; depois, a falha é dele.
    sw.onerror = (ev) => {
      if (c.ouviu || !c.compartilhado) return erro(ev);
      try { comum(); } catch { erro(ev); }
    };
    sw.port.onmessage = msg;
    c.enviar = (d) => sw.port.postMessage(d);
    c.fechar = () => sw.port.close();
    c.compartilhado = true;
    return c;
  };
  globalThis.livroAbrir = async (widgets, inicio, opcoes) => {
    let c = opcoes?.cedo || null;
    let m;
    try {
      const r = await fetch(url("pyodide/manifesto.json"), { cache: "no-cache" });
      if (r.status === 404) {
        c?.fechar();
        return { erro: "O site não tem o runtime do Python (_static/pyodide/manifesto.json): o build não terminou." };
      }
      if (!r.ok) {
        c?.fechar();
        return { erro: `Não deu para buscar a lista do runtime do Python (HTTP ${r.status}).` };
      }
      m = await r.json();
    } catch (e) {
      c?.fechar();
      // nunca o texto do navegador (em inglês: "Failed to fetch"); widgets.js diz o que acontece agora
      return { erro: "Sem conexão: não deu para buscar o Python dos widgets.", detalhe: String(e?.message || e) };
    }
    if (c && c.versao !== m.versao) { // o site foi publicado de novo: o worker certo é outro
      c.fechar();
      c = null;
    }
    if (c) c.antecipado = true; // criado antes do manifesto chegar
    c ??= abrir(m.versao, opcoes);
    c.inicio = inicio;
    c.partir({ tipo: "iniciar", paradoMs: cfg.paradoMs, widgets, manifesto: m });
    return c;
  };
  if (cfg.modo !== "visivel" || !cfg.ocioso || !globalThis.caches || !globalThis.Worker) return;
  // Baixa o runtime e inicia o Python no worker compartilhado, ocioso depois do load; o canal fica até a página sair.
  const antecipar = () => {
    const con = navigator.connection;
    if (cfg.antecipar === false || con?.saveData || /2g$/.test(con?.effectiveType || "")) return;
    const ir = () => (globalThis.requestIdleCallback || setTimeout)(() => {
      globalThis.livroAntecipado = globalThis.livroAbrir([], performance.now()).catch(() => null);
    }, { timeout: 1500 });
    if (document.readyState === "complete") ir(); else addEventListener("load", ir, { once: true });
  };
  const inicio = performance.now();
  let cedo = null;
  try {
    const v = localStorage.getItem(VERSAO);
    if (v && /^[\w-]{1,64}$/.test(v)) cedo = abrir(v);
  } catch {
    cedo = null; // sem localStorage (ou o worker recusado): abre depois do manifesto
  }
  globalThis.livroPartida = caches.has("livro-runtime")
    .then((tem) => {
      if (tem) return globalThis.livroAbrir(__WIDGETS__, inicio, { cedo });
      cedo?.fechar();
      if (__ANTECIPAR__) antecipar();
      return null;
    })
    .catch(() => { cedo?.fechar(); return null; });
})();
