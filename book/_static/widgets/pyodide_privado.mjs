// Tudo o que o worker dos widgets usa do Pyodide além da API pública, num lugar só.
//
// Vale para o Pyodide fixado no package.json (PYODIDE, abaixo). Ao trocar a versão, rode
// `node --test tests/js/pyodide_privado.test.mjs`: ele carrega o Pyodide novo com estas funções
// e falha dizendo a versão e qual peça mudou. O resto do worker (worker.mjs) só chama o que
// este arquivo exporta.
//
// O que é privado (ou não documentado) e onde aparece:
// - as opções `_makeSnapshot` e `_loadSnapshot` do loadPyodide e `makeMemorySnapshot`: a memória
//   do Python recém-iniciado, guardada no Cache API e restaurada na carga seguinte;
// - `globalThis._createPyodideModule`: definido pelo pyodide.asm.js; com ele já definido, o
//   loadPyodide não busca o arquivo (o worker o roda dos bytes que já tem);
// - o pyodide.asm.js busca `pyodide.asm.wasm` com fetch e o entrega a
//   `WebAssembly.instantiateStreaming`: os dois remendos de `remendar` entregam o módulo que o
//   worker já compilou (e a roda do livro, que o loadPackage busca com fetch).

export const PYODIDE = "0.29.5";

// O Pyodide carregado é o desta versão? (senão, a API privada abaixo pode não valer)
export function conferirVersao(py) {
  if (py?.version !== PYODIDE) {
    throw new Error(`o worker foi escrito para o Pyodide ${PYODIDE}, e este é o ${py?.version}`);
  }
}

// As opções do loadPyodide para a memória: restaurar `foto` (bytes), ou permitir tirar uma.
export function opcoesDaMemoria(foto, tirar) {
  return foto ? { _loadSnapshot: foto } : { _makeSnapshot: Boolean(tirar) };
}

// A memória do Python (Uint8Array), depois de abrir a roda do livro no site-packages (unpackArchive,
// o que o loadPackage usa) e de rodar `preparo` (Python puro: nada de objetos do JavaScript, que o
// instantâneo recusa). Só num Python iniciado com opcoesDaMemoria(null, true).
export function tirarMemoria(py, roda, preparo) {
  const sitePackages = py.runPython("import site; site.getsitepackages()[0]");
  py.unpackArchive(roda, "wheel", { extractDir: sitePackages });
  py.runPython(preparo);
  return py.makeMemorySnapshot();
}

// Roda o pyodide.asm.js (um Blob já em mãos): define globalThis._createPyodideModule, e o
// loadPyodide não busca o arquivo de novo. Devolve se ficou definido.
export async function rodarAsm(blob) {
  await import(URL.createObjectURL(new Blob([blob], { type: "text/javascript" })));
  return typeof globalThis._createPyodideModule === "function";
}

// Remenda o fetch do escopo e WebAssembly.instantiateStreaming durante o loadPyodide:
// - o fetch de `.../pyodide.asm.wasm` recebe wasm() (uma Response; o Pyodide nem a lê);
// - o fetch de cada endereço de `arquivos` (endereço -> bytes) recebe esses bytes;
// - instantiateStreaming instancia o módulo de `compilando` (uma Promise<WebAssembly.Module>)
//   e chama aoInstanciar().
// Devolve a função que desfaz os dois remendos.
export function remendar(escopo, { wasm, arquivos = {}, compilando, aoInstanciar = () => {} }) {
  const fetchAntes = escopo.fetch;
  const instanciarAntes = WebAssembly.instantiateStreaming;
  const rede = fetchAntes.bind(escopo);
  escopo.fetch = (recurso, opcoes) => {
    const u = typeof recurso === "string" ? recurso : (recurso.url || String(recurso));
    if (u.endsWith("/pyodide.asm.wasm")) return Promise.resolve(wasm());
    if (Object.hasOwn(arquivos, u)) return Promise.resolve(new Response(arquivos[u]));
    return rede(recurso, opcoes);
  };
  WebAssembly.instantiateStreaming = async (_resposta, importacoes) => {
    const module = await compilando;
    const instance = await WebAssembly.instantiate(module, importacoes);
    aoInstanciar();
    return { module, instance };
  };
  return () => {
    escopo.fetch = fetchAntes;
    WebAssembly.instantiateStreaming = instanciarAntes;
  };
}
