// O que o worker dos widgets guarda no Cache API ("livro-runtime"): as chaves de cada coisa (com
// a versão do site ou o hash do arquivo), o runtime descomprimido e a memória do Python. Só funções;
// quem decide quando guardar e ler é o worker.mjs.
import { remontarFoto } from "./memoria.mjs";

const BASE = new URL("../", import.meta.url); // .../_static/
export const CACHE = "livro-runtime";
export const chave = (item) => new URL(`${item.url}?v=${item.hash}`, BASE).href;
export const chaveMemoria = (versao) => new URL(`pyodide/memoria?v=${versao}`, BASE).href;
// O runtime já descomprimido (o .wasm, o pyodide.asm.js e a biblioteca padrão), guardado depois
// do primeiro "pronto" com a versão do site: a carga seguinte não lê os pedaços de gzip nem os
// descomprime de novo (uns 13 MB a mais no navegador).
export const chavesCru = (versao) => Object.fromEntries(["wasm", "asm", "stdlib"]
  .map((n) => [n, new URL(`pyodide/cru/${n}?v=${versao}`, BASE).href]));
// O manifesto da versão, guardado com o runtime descomprimido: com ele, a carga seguinte começa
// quando o worker nasce (partirSozinho, abaixo), sem esperar o da página.
export const chaveManifesto = (versao) => new URL(`pyodide/cru/manifesto?v=${versao}`, BASE).href;
// Os 12 primeiros dígitos hexadecimais do SHA-256: o "hash" de cada arquivo no manifesto.
export const hashDe = async (bytes) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)).slice(0, 6)]
  .map((x) => x.toString(16).padStart(2, "0")).join("");
// O .wasm pelo cache HTTP do navegador (o endereço leva o hash dele). Só um wasm compilado de
// uma resposta do `fetch` ganha o cache de código do V8 (no Chromium): a carga que o compila
// dali grava o código já otimizado, e as seguintes o leem em vez de recompilar (sem as
// compilações preguiçosas e do TurboFan que deixavam lentas as primeiras respostas de um worker
// novo). Uma resposta do Cache API, ou montada aqui, não ganha. A marca diz que os bytes desse
// endereço no cache HTTP já conferiram com o manifesto ("confere"), ou que já estiveram lá e
// saíram ("faltou": um navegador que não guarda o arquivo, como uma janela anônima, cujo cache
// HTTP fica na memória; então não se busca de novo, e o leitor não baixa o .wasm a cada carga).
export const urlWasmHttp = (m) => new URL(`${m.wasm.inteiro.url}?v=${m.wasm.inteiro.hash}`, BASE).href;
export const chaveMarcaHttp = (m) => new URL(`pyodide/cru/http?v=${m.wasm.inteiro.hash}`, BASE).href;
export async function lerCru(cache, kc, m) {
  try {
    const rs = await Promise.all([kc.wasm, kc.asm, kc.stdlib].map((k) => cache.match(k)));
    if (!rs.every(Boolean)) return null;
    const [wasm, asm, stdlib] = await Promise.all(rs.map((r) => r.blob()));
    // um arquivo do tamanho errado não serve; o hash (SHA-256, o do manifesto) é conferido
    // enquanto o wasm compila, antes de o Python iniciar
    const pares = [[wasm, m.wasm.inteiro], [asm, m.asm.inteiro], [stdlib, m.stdlib.inteiro]];
    if (pares.some(([b, item]) => b.size !== item.bytes)) return null;
    const confere = Promise.all(pares.map(async ([b, item]) => {
      if (await hashDe(await b.arrayBuffer()) !== item.hash) throw new Error(`o ${item.url} guardado não confere`);
    }));
    confere.catch(() => {}); // a falha aparece em iniciar
    return { wasm, asm, stdlib, confere, bytes: wasm.size + asm.size + stdlib.size };
  } catch {
    return null;
  }
}
export const lerMemoria = (versao) => (self.caches ? caches.open(CACHE)
  .then((c) => c.match(chaveMemoria(versao)))
  .then((r) => (r ? r.arrayBuffer() : null))
  .then((b) => (b ? remontarFoto(new Uint8Array(b)) : null))
  .catch(() => null) : Promise.resolve(null));

export async function abrirCache(itens, extras = []) {
  try {
    if (!self.caches) return null; // fora de um contexto seguro (http:// que não é local)
    const c = await caches.open(CACHE);
    const validos = new Set([...itens.map(chave), ...extras]);
    // o que é de outra versão sai sem a carga esperar (nunca é o que ela lê)
    c.keys().then((reqs) => Promise.all(reqs.filter((r) => !validos.has(r.url)).map((r) => c.delete(r))))
      .catch(() => {});
    return c;
  } catch {
    return null;
  }
}
