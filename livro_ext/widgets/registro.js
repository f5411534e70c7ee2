// O registro do service worker do livro (offline.js, na raiz do site; livro_ext/widgets/offline.py),
// embutido no <head> de toda página (widgets.py), sem os comentários. Depois do load, sem pressa;
// então pede a ele que guarde esta página e o que ela carregou antes de ele existir.
// LIVRO_WIDGETS = { offline: false } (testes) não registra.
(() => {
  if (!("serviceWorker" in navigator) || location.protocol === "file:" || globalThis.LIVRO_WIDGETS?.offline === false) return;
  const raiz = document.documentElement.dataset.content_root || "";
  addEventListener("load", () => setTimeout(() => {
    navigator.serviceWorker.register(raiz + "offline.js")
      .then(() => navigator.serviceWorker.ready)
      .then((reg) => reg.active?.postMessage({ tipo: "guardar",
        urls: [location.href.split("#")[0], ...performance.getEntriesByType("resource").map((e) => e.name)] }))
      .catch(() => {});
  }, 1000), { once: true });
})();
