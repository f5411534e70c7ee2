// O service worker do livro (o build o escreve como offline.js, na raiz do site; livro_ext/widgets/offline.py).
//
// Guarda as páginas que o leitor abriu e o que o worker dos widgets busca pela rede (ele, os
// módulos dele, o pyodide.mjs e o manifesto; o runtime em si o worker já guarda no Cache API):
// o leitor no ônibus reabre uma página e usa o widget sem rede. Rede primeiro, sempre (quem está
// online vê o site publicado agora); o guardado só quando a rede falha, ou demora mais que
// ESPERA com uma cópia à mão. O runtime do Python (_static/pyodide/, menos o pyodide.mjs e o
// manifesto) passa direto: o worker o busca e guarda ele mesmo.
//
// Uma versão por site publicado (a do runtime, a mesma do worker, e um hash das páginas): o
// cache chama livro-site-<versão>, e ao ativar uma versão nova as outras somem; nunca se mistura.
const VERSAO = __VERSAO__;
const GUARDAR = __GUARDAR__; // relativos à raiz do site
const NOME = `livro-site-${VERSAO}`;
const RAIZ = new URL("./", self.location.href);
const ESPERA = 4000; // ms de rede antes de servir a cópia guardada

const passaDireto = (url) => url.pathname.includes("/_static/pyodide/")
  && !/\/_static\/pyodide\/(pyodide\.mjs|manifesto\.json)$/.test(url.pathname);

// Ao instalar, GUARDAR só do cache HTTP (o worker acabou de buscar esses arquivos, ou vai
// buscá-los: nada vem duas vezes pela rede); o que faltar vem com o próximo "guardar" da página.
self.addEventListener("install", (ev) => {
  ev.waitUntil(caches.open(NOME)
    .then((c) => Promise.all(GUARDAR.map((u) => new URL(u, RAIZ).href).map((u) =>
      fetch(u, { cache: "only-if-cached", mode: "same-origin" }).then((r) => r.ok && c.put(u, r)).catch(() => {}))))
    .catch(() => {})
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil((async () => {
    for (const k of await caches.keys()) if (k.startsWith("livro-site-") && k !== NOME) await caches.delete(k);
    await self.registration.navigationPreload?.enable().catch(() => {});
    await self.clients.claim();
  })());
});

// A página pede para guardar o que ela já carregou antes de este service worker existir e o que
// faltou de GUARDAR; widgets.js pede de novo quando o Python fica pronto. Tudo só do cache HTTP
// (only-if-cached): este service worker nunca baixa nada por conta própria, nem disputa a rede com
// a página (um widget que o leitor não viu não baixa nada).
self.addEventListener("message", (ev) => {
  if (ev.data?.tipo !== "guardar" || !Array.isArray(ev.data.urls)) return;
  ev.waitUntil((async () => {
    const c = await caches.open(NOME);
    const soDoCache = { cache: "only-if-cached", mode: "same-origin" };
    for (const u of [...ev.data.urls.slice(0, 200), ...GUARDAR]) {
      const url = new URL(u, RAIZ);
      if (url.origin !== RAIZ.origin || !url.href.startsWith(RAIZ.href) || passaDireto(url)) continue;
      if (await c.match(url.href)) continue;
      try {
        const r = await fetch(url.href, soDoCache);
        if (r.ok && r.type === "basic") await c.put(url.href, r);
      } catch {
        // fora do cache HTTP: fica para a próxima
      }
    }
  })());
});

async function guardado(req) {
  const c = await caches.open(NOME);
  return (await c.match(req)) || (await c.match(req, { ignoreSearch: true }));
}

async function daRede(ev) {
  const req = ev.request;
  const preparada = req.mode === "navigate" ? await ev.preloadResponse?.catch(() => null) : null;
  const r = preparada || await fetch(req);
  if (r.ok && r.type === "basic" && !req.headers.has("range")) {
    const copia = r.clone();
    ev.waitUntil(caches.open(NOME).then((c) => c.put(req, copia)).catch(() => {}));
  }
  return r;
}

async function responder(ev) {
  const rede = daRede(ev);
  rede.catch(() => {});
  const copia = guardado(ev.request);
  // a rede que demora com uma cópia à mão: a cópia (a rede segue e atualiza o guardado)
  const lenta = new Promise((ok) => setTimeout(ok, ESPERA)).then(() => copia).then((r) => r || rede);
  try {
    return await Promise.race([rede, lenta]);
  } catch {
    const r = await copia;
    if (r) return r;
    if (ev.request.mode === "navigate") {
      return new Response("<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>" +
        "<title>Sem conexão</title><p style='font:1.1rem sans-serif;margin:2rem'>Sem conexão, e esta página " +
        "ainda não foi aberta neste aparelho. As páginas que você já abriu continuam disponíveis sem rede.",
        { status: 503, headers: { "content-type": "text/html; charset=utf-8" } });
    }
    return Response.error();
  }
}

self.addEventListener("fetch", (ev) => {
  const req = ev.request;
  if (req.method !== "GET" || req.cache === "only-if-cached") return;
  const url = new URL(req.url);
  if (url.origin !== RAIZ.origin || !url.href.startsWith(RAIZ.href) || passaDireto(url)) return;
  ev.respondWith(responder(ev));
});
