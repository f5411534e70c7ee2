// Partida antecipada do Python dos widgets (book/_ext/widgets.py a põe embutida no começo do
// <head> das páginas com widget, com __WIDGETS__ trocado pelos nomes deles). Se o runtime já
// está no Cache API (o leitor viu outra página com widget), o worker começa aqui, enquanto o
// HTML ainda chega; widgets.js (defer) adota esse worker e as mensagens que ele já mandou.
// Sem runtime guardado, não faz nada: numa página fria o Python só carrega quando um widget
// aparece. As mesmas condições do widgets.js (LIVRO_WIDGETS, file://).
(() => {
  const cfg = Object.assign({ modo: "visivel", ocioso: true, paradoMs: 20000 }, globalThis.LIVRO_WIDGETS);
  if (location.protocol === "file:" || cfg.modo !== "visivel" || !cfg.ocioso || !globalThis.caches ||
      !globalThis.Worker) return;
  const inicio = performance.now();
  globalThis.livroPartida = caches.has("livro-runtime").then((tem) => {
    if (!tem) return null;
    const raiz = document.documentElement.dataset.content_root || "";
    const worker = new Worker(new URL(raiz + "_static/widgets/worker.mjs", location.href), { type: "module" });
    const fila = [];
    worker.onmessage = worker.onerror = (ev) => { fila.push(ev); };
    worker.postMessage({ tipo: "iniciar", paradoMs: cfg.paradoMs, widgets: __WIDGETS__ });
    return { worker, fila, inicio };
  }).catch(() => null);
})();
