// O treino ao vivo do widget "treino" (book/treino.md). O protocolo dos widgets é um pedido por
// clique; aqui, enquanto a resposta do Python traz [data-continua], clica-se de novo no botão
// escondido "passo" (widgets.js põe o pedido na fila do widget, atrás de um "Pausar" do leitor).
// O setTimeout devolve a vez à página entre um pedido e outro.
(() => {
  function olhar(w) {
    const saida = w.querySelector(".lw-saida");
    if (!saida || w._treinoOlhado) return;
    w._treinoOlhado = true;
    new MutationObserver(() => {
      if (!saida.querySelector("[data-continua]")) return;
      const bt = w.querySelector('button[data-acao="passo"]');
      if (bt && !bt.disabled) setTimeout(() => bt.click(), 0);
    }).observe(saida, { childList: true });
  }
  function todos() {
    for (const w of document.querySelectorAll('[data-widget="treino"]')) olhar(w);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", todos);
  else todos();
})();
