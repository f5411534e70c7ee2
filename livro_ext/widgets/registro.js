// O registro do service worker (offline.js; offline.py), embutido sem os comentários em toda página (widgets.py):
// depois do load, sem pressa, e pede a ele que guarde esta página e o que ela carregou antes de ele existir.
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
