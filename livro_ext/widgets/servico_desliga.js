// O service worker do livro desligado (build com LIVRO_OFFLINE=0; livro_ext/widgets/offline.py): apaga o
// que uma versão anterior guardou e se desregistra. As páginas deste build não registram nenhum.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (ev) => {
  ev.waitUntil((async () => {
    for (const k of await caches.keys()) if (k.startsWith("livro-site-")) await caches.delete(k);
    await self.registration.unregister();
  })());
});
