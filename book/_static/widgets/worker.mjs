// O worker dos widgets: carrega o Pyodide (de _static/pyodide/, nunca de fora), instala
// a roda (wheel) do livro com loadPackage, a partir do pyodide-lock.json do site (os dois
// feitos no build pelo pyodide-build, já em bytecode), e responde aos pedidos da página
// com a função responder_json do livro.
//
// Compartilhado entre as páginas (SharedWorker, aberto por livro_ext/widgets/partida.js com o nome
// da versão do site e `extendedLifetime`): o leitor passa para a página seguinte e o Python
// já carregado continua vivo (o Chromium o guarda por alguns minutos sem página nenhuma), então
// a segunda página só aquece os widgets dela. Sem SharedWorker, é um Worker comum, um por página.
// Cada página manda "iniciar" com o manifesto que ela leu; o worker responde "pronto" a cada uma.
// Com o runtime já guardado (o leitor passou por aqui), a carga nem espera o primeiro "iniciar":
// começa quando o worker nasce, com o manifesto guardado (partirSozinho, no fim).
// Se a carga falha, o worker avisa quem espera e se fecha: a próxima página começa outro.
//
// O que ele busca está no manifesto (_static/pyodide/manifesto.json, escrito por
// livro_ext.widgets.pos_build): nome, bytes e hash de cada arquivo. A carga foi feita para a rede de
// um celular:
// - cada arquivo vai para o Cache API do navegador assim que chega inteiro; o .wasm e o
//   pyodide.asm.js vêm em pedaços de gzip, então uma recarga continua do último pedaço
//   que chegou, e uma segunda página não baixa nada;
// - o progresso (bytes recebidos de quantos) vai para as páginas a cada pedaço de rede;
// - só desiste quando a rede para: nenhum byte em `paradoMs` (padrão 20 s);
// - o .wasm é montado aqui (gzip → DecompressionStream) e entregue ao Pyodide com o
//   tipo application/wasm: o tipo que o servidor manda não importa mais;
// - a biblioteca padrão é o zip enxuto do build, já compilado; a roda do livro vem com o
//   resto (mesmo cache, mesmo progresso) e o fetch do loadPackage a recebe daqui.
//
// A memória do Python recém-iniciado também fica no Cache API (um instantâneo do Pyodide,
// API privada da versão fixada, só por pyodide_privado.mjs): a próxima carga sem um Python vivo (um
// Worker comum na página seguinte, ou o leitor que volta outro dia) a restaura em vez de iniciar
// o Python de novo, já com os módulos dos widgets importados. A memória tem uns 21 MB, e metade
// são páginas só de zeros, que não se guardam: ficam uns 11 MB (pedacosDaFoto); o que
// não der certo com ele (cota, versão, bytes estragados) só faz o Python iniciar do jeito normal.
// O runtime descomprimido (o .wasm, o pyodide.asm.js e a biblioteca padrão, uns 13 MB) fica ao
// lado: a carga seguinte não descomprime nada; se o hash dele não confere, recomeça dos pedaços.

import {
  abrirCache, CACHE, chave, chaveManifesto, chaveMarcaHttp, chaveMemoria, chavesCru, hashDe, lerCru, lerMemoria,
  urlWasmHttp,
} from "./guardado.mjs";
import { pedacosDaFoto } from "./memoria.mjs";
import { conferirVersao, opcoesDaMemoria, remendar, rodarAsm, tirarMemoria } from "./pyodide_privado.mjs";

const BASE = new URL("../", import.meta.url); // .../_static/
const CONCORRENCIA = 2; // poucos pedidos de cada vez: numa recarga, no máximo 2 pedaços se perdem
const COMPARTILHADO = typeof SharedWorkerGlobalScope !== "undefined" && self instanceof SharedWorkerGlobalScope;
const fetchDaRede = self.fetch.bind(self); // o fetch de verdade (o remendo do Pyodide é só durante a carga)
const ID = globalThis.crypto?.randomUUID?.() ?? String(Math.random()).slice(2); // este worker (testes)
let responder = null;
let formato = null;
let pacote = null;
let bytecode = null; // o bytecode veio pronto do build (pyodide py-compile): nada a compilar aqui
let paradoMs = 20_000;
let memoria = "sem"; // o instantâneo da memória nesta carga: usado | feito | sem
let naMemoria = false; // os módulos do livro já estavam importados na memória restaurada
let runtime = "pedaços"; // de onde veio o runtime nesta carga: pedaços (de gzip) | descomprimido
let wasmDe = "pedaços"; // de onde o wasm compilou: pedaços | descomprimido (Cache API) | http (cache HTTP)
// Python, antes do instantâneo (com a roda já aberta por unpackArchive): os módulos de todos os
// widgets importados (livro.widgets.api.importar_todos), e os que o loadPackage importa na
// primeira vez (importlib.metadata, tarfile: uns 35 ms a menos na página seguinte).
const preparo = (api) => [
  "def _preparo():",
  "    import importlib, importlib.metadata, tarfile",
  `    importlib.import_module(${JSON.stringify(api)}).importar_todos()`,
  "_preparo()",
  "del _preparo",
].join("\n");
// A versão do site está no endereço deste worker (partida.js): a memória guardada começa a ser
// lida já, antes de a página mandar o manifesto (a página ainda está lendo o HTML).
const VERSAO = new URL(import.meta.url).searchParams.get("v");
let memoriaCedo = VERSAO ? lerMemoria(VERSAO) : null; // solto depois de usado (21 MB)
const t0 = performance.now();
const fases = {};
const marca = (nome) => { fases[nome] = Math.round(performance.now() - t0); };

let estado = "parado"; // parado | carregando | pronto | falhou
let mensagemFalha = null; // { mensagem, motivo, detalhe } da última falha
let desfazer = null; // desfaz os remendos do Pyodide (pyodide_privado.mjs) desta carga
let iniciando = false; // tudo baixado, o Python começando
let inicioCarga = 0; // quando esta carga começou (o "iniciar" da página, ou o worker sozinho)
let sozinho = false; // a carga começou antes do "iniciar" de qualquer página (partirSozinho)
let entregue = false; // algum "pronto" desta carga já foi mandado
const esperando = new Set(); // as portas (páginas) que pediram "iniciar" e esperam "pronto"
const aquecidos = new Set(); // os widgets já chamados uma vez neste worker

class Parou extends Error {} // a rede parou: nenhum byte em paradoMs
class ErroServidor extends Error {} // o servidor respondeu com um erro HTTP (a mensagem, em português)

// O que se guarda depois do "pronto" espera o leitor parar de mexer (nenhum pedido há 1 s):
// guardar disputa a CPU, e uma resposta que chega nessa hora atrasaria.
let ultimoPedido = 0;
let respondidas = 0; // pedidos das páginas respondidos
const espera = (ms) => new Promise((ok) => setTimeout(ok, ms));
const ocioso = async () => {
  while (performance.now() - ultimoPedido < 1000) await espera(250);
};

function difundir(msg) {
  for (const p of esperando) p.postMessage(msg);
}

// motivo: "rede" (a conexão caiu ou parou), "servidor" (um HTTP de erro) ou "python" (o Python
// não iniciou; detalhe: o texto da exceção, só para os testes, nunca para o leitor). Uma falha
// de rede ou do servidor deixa o worker limpo: o próximo "iniciar" (a página que tenta de novo)
// recomeça a carga, do que já está no Cache API. Um Python que não iniciou pode ter deixado o
// worker pela metade: o compartilhado se fecha, e a próxima tentativa abre outro.
function falhou(mensagem, motivo = "python", detalhe = "", fechar = motivo === "python") {
  estado = "falhou";
  mensagemFalha = { mensagem, motivo, detalhe, fechar };
  difundir({ tipo: "falhou", ...mensagemFalha });
  esperando.clear();
  if (fechar && COMPARTILHADO) self.close();
}


// ---------------------------------------------------------------------------
// Buscar com progresso, cache e vigia de rede parada
const progresso = { rede: 0, cache: 0, total: 0 };
let ultimoAviso = 0;
function avisar(forcar) {
  const agora = performance.now();
  if (!forcar && agora - ultimoAviso < 100) return;
  ultimoAviso = agora;
  difundir({ tipo: "progresso", ...progresso });
}

async function buscar(item, cache) {
  const url = chave(item);
  if (cache) {
    const r = await cache.match(url).catch(() => null);
    if (r) {
      const dados = new Uint8Array(await r.arrayBuffer());
      if (dados.length === item.bytes) {
        progresso.cache += dados.length;
        avisar();
        return dados;
      }
    }
  }
  const ctrl = new AbortController();
  let vigia = setTimeout(() => ctrl.abort(), paradoMs);
  let n = 0;
  try {
    const r = await fetch(url, { signal: ctrl.signal });
    if (!r.ok) throw new ErroServidor(`O site respondeu ${r.status} a _static/${item.url}: o runtime do Python está incompleto no servidor.`);
    const leitor = r.body.getReader();
    const partes = [];
    for (;;) {
      const { done, value } = await leitor.read();
      if (done) break;
      clearTimeout(vigia);
      vigia = setTimeout(() => ctrl.abort(), paradoMs);
      partes.push(value);
      n += value.length;
      progresso.rede += value.length;
      avisar();
    }
    clearTimeout(vigia);
    const dados = new Uint8Array(n);
    let i = 0;
    for (const p of partes) { dados.set(p, i); i += p.length; }
    if (cache) {
      await cache.put(url, new Response(dados, { headers: { "content-type": "application/octet-stream" } }))
        .catch(() => {}); // cota cheia: segue sem guardar
    }
    return dados;
  } catch (e) {
    clearTimeout(vigia);
    progresso.rede -= n;
    if (ctrl.signal.aborted) throw new Parou();
    throw e;
  }
}

async function buscarTodos(itens, cache) {
  const saida = new Array(itens.length);
  let proximo = 0;
  const trabalhador = async () => {
    while (proximo < itens.length) {
      const i = proximo++;
      saida[i] = await buscar(itens[i], cache);
    }
  };
  await Promise.all(Array.from({ length: CONCORRENCIA }, trabalhador));
  return saida;
}

const mib = (n) => (n / 1048576).toLocaleString("pt-BR", { maximumFractionDigits: 1, minimumFractionDigits: 1 });

// ---------------------------------------------------------------------------
// semCru: sem o runtime descomprimido guardado (ele falhou nesta carga: recomeça dos pedaços).
async function iniciar(m, semCru = false) {
  if (!m?.wasm) return falhou("A página não mandou a lista do runtime do Python.", "servidor");
  marca("pedido"); // o "iniciar" da página chegou (com o manifesto que ela já leu), ou o worker partiu sozinho
  inicioCarga = performance.now();
  // o módulo do Pyodide vem enquanto o runtime se lê do cache (antes, só depois dele)
  const mjs = import("../pyodide/pyodide.mjs");
  let mjsFalhou = false; // sem rede: um import que falhou fica falho neste worker (o mapa de módulos)
  mjs.catch(() => { mjsFalhou = true; }); // a falha aparece abaixo, no try
  progresso.rede = progresso.cache = 0;
  const descomprime = typeof DecompressionStream === "function";
  const wasmItens = descomprime ? m.wasm.pedacos : [m.wasm.inteiro];
  const asmItens = descomprime ? m.asm.pedacos : [m.asm.inteiro];
  const stdlibItem = descomprime ? m.stdlib.gz : m.stdlib.inteiro;
  // o instantâneo vale para esta versão do site (runtime, biblioteca padrão e este worker)
  const chaveFoto = chaveMemoria(m.versao);
  const lendoMemoria = memoriaCedo && VERSAO === m.versao ? memoriaCedo : lerMemoria(m.versao);
  memoriaCedo = null;
  const kc = chavesCru(m.versao);
  const cache = await abrirCache([m.stdlib.gz, m.stdlib.inteiro, ...m.asm.pedacos, m.asm.inteiro,
    ...m.wasm.pedacos, m.wasm.inteiro, m.lock, m.roda],
  [chaveFoto, ...Object.values(kc), chaveMarcaHttp(m), chaveManifesto(m.versao)]);
  // Com o runtime guardado (o leitor voltou), o wasm compila do cache HTTP, se a marca diz que
  // ele está lá e confere; só do cache (only-if-cached: sem rede), e um erro volta ao guardado.
  // O runtime e a marca são lidos juntos.
  const [cru, marca_] = descomprime && cache && !semCru
    ? await Promise.all([lerCru(cache, kc, m), cache.match(chaveMarcaHttp(m)).then((r) => r?.text(), () => "faltou")])
    : [null, null];
  runtime = cru ? "descomprimido" : "pedaços";
  const marcaHttp = cru ? marca_ : null;
  const doHttp = marcaHttp === "confere";
  const gz = (partes) => new Blob(partes).stream().pipeThrough(new DecompressionStream("gzip"));
  let partesWasm = null; // os pedaços do wasm, quando não há runtime guardado
  // o wasm como resposta do tipo application/wasm, dos bytes que já temos
  const respostaWasm = () => new Response(cru ? cru.wasm : descomprime ? gz(partesWasm) : new Blob(partesWasm),
    { headers: { "content-type": "application/wasm" } });
  // O wasm compila enquanto o resto se monta (a biblioteca padrão, o pyodide.asm.js, a memória
  // guardada); o Pyodide recebe o módulo compilado, e uma segunda partida (depois de uma memória
  // guardada que não serviu) não compila de novo. Com o runtime guardado, ele começa já, antes de
  // a roda e o lock saírem do cache (uns 50–125 ms antes, medido num Worker comum).
  const doGuardado = () => {
    wasmDe = cru ? "descomprimido" : "pedaços";
    return WebAssembly.compileStreaming(respostaWasm());
  };
  const compilar = () => {
    const c = !doHttp ? doGuardado()
      : WebAssembly.compileStreaming(fetchDaRede(urlWasmHttp(m), { cache: "only-if-cached", mode: "same-origin" }))
        .then((modulo) => { wasmDe = "http"; return modulo; }, () => {
          cache.put(chaveMarcaHttp(m), new Response("faltou")).catch(() => {}); // saiu do cache HTTP
          return doGuardado();
        });
    c.catch(() => {}); // a falha aparece quando o Pyodide pedir o módulo
    return c;
  };
  let compilando = cru ? compilar() : null;
  // O pyodide.asm.js guardado (1 MB de JavaScript, uns 0,1 s deste thread) roda logo depois de o
  // wasm começar a compilar, junto com a compilação. Antes, rodava depois do módulo do Pyodide;
  // rodado antes da compilação, ele a atrasava (ela também usa este thread para ler o wasm).
  const asmRodando = cru ? rodarAsm(cru.asm).then(() => null, (e) => e) : null;
  const itens = cru ? [m.lock, m.roda] : [...asmItens, ...wasmItens, stdlibItem, m.lock, m.roda];
  progresso.total = itens.reduce((s, i) => s + i.bytes, 0) + (cru ? cru.bytes : 0);
  if (cru) progresso.cache += cru.bytes;
  avisar(true);
  let dados;
  try {
    dados = await buscarTodos(itens, cache);
  } catch (e) {
    // Nunca o texto do navegador (em inglês: "Failed to fetch", "network error"): o que houve e o
    // que acontece agora, em português. O que já chegou fica no Cache API.
    const chegaram = `chegaram ${mib(progresso.rede + progresso.cache)} de ${mib(progresso.total)} MiB`;
    if (e instanceof ErroServidor) return falhou(e.message, "servidor");
    if (e instanceof Parou) {
      return falhou(`A rede parou: nenhum byte em ${Math.round(paradoMs / 1000)} s (${chegaram}). ` +
        "O que já chegou fica guardado neste navegador, e a carga continua daí.", "rede");
    }
    return falhou(progresso.rede + progresso.cache > 0
      ? `A conexão caiu no meio do download do Python (${chegaram}). O que já chegou fica guardado ` +
        "neste navegador, e a carga continua daí quando a rede voltar."
      : "Sem conexão: não deu para baixar o Python dos widgets.", "rede", String(e?.message || e));
  }
  avisar(true);
  marca("baixado");
  iniciando = true;
  difundir({ tipo: "fase", fase: "iniciando" });
  const partesAsm = cru ? null : dados.slice(0, asmItens.length);
  partesWasm = cru ? null : dados.slice(asmItens.length, asmItens.length + wasmItens.length);
  const [s, lockBytes, roda] = cru ? [null, ...dados] : dados.slice(asmItens.length + wasmItens.length);
  const lock = JSON.parse(new TextDecoder().decode(lockBytes));
  const urlRoda = new URL(m.roda.url, BASE).href;

  // O Pyodide busca `pyodide.asm.wasm` e, no loadPackage, a roda do livro com fetch:
  // entregamos os bytes que já temos (a resposta do wasm ele nem lê: recebe o módulo já
  // compilado, logo abaixo; sem ela, o pedido iria à rede).
  compilando ??= compilar();
  desfazer?.();
  desfazer = remendar(self, { wasm: respostaWasm, arquivos: { [urlRoda]: roda }, compilando,
    aoInstanciar: () => marca("wasm") });

  let py;
  let instalarDepois = null; // a roda, a instalar depois do "pronto" (o livro veio na memória)
  let novaFoto = null; // a memória do Python recém-iniciado, a guardar depois do "pronto"
  let asm = null; // o pyodide.asm.js e a biblioteca padrão descomprimidos (Blob), a guardar também
  let stdlib = null;
  try {
    const { loadPyodide } = await mjs;
    // pyodide.asm.js (montado dos pedaços, ou o descomprimido guardado) define
    // globalThis._createPyodideModule; com ele definido, o Pyodide não busca o arquivo de novo.
    if (cru) {
      const e = await asmRodando;
      if (e) throw e; // o guardado estragou: recomeça dos pedaços (abaixo)
    } else {
      asm = descomprime ? await new Response(gz(partesAsm)).blob() : new Blob(partesAsm);
      try {
        await rodarAsm(asm);
      } catch {
        // o Pyodide importa o arquivo ele mesmo
      }
    }
    stdlib = cru ? cru.stdlib : descomprime ? await new Response(gz([s])).blob() : new Blob([s]);
    const config = {
      indexURL: new URL("pyodide/", BASE).href,
      stdLibURL: URL.createObjectURL(stdlib),
      lockFileContents: lock,
      packageBaseUrl: new URL("pyodide/", BASE).href,
      stdout: () => {}, stderr: () => {},
    };
    // Inicia o Python (da memória guardada, se veio) e instala a roda; confere uma conta.
    const subir = async (foto) => {
      const py = await loadPyodide({ ...config, ...opcoesDaMemoria(foto, Boolean(cache)) });
      conferirVersao(py); // outro Pyodide: a API privada pode não valer (cai no catch de baixo)
      if (!foto && cache) {
        // Antes do loadPackage, que deixa objetos do JavaScript que o instantâneo recusa: a roda
        // aberta no site-packages (unpackArchive, a API do Pyodide que o loadPackage usa) e os
        // módulos dos widgets importados, para a página seguinte recebê-los já na memória (o
        // loadPackage, logo abaixo, instala a mesma roda por cima e a registra). Copiar a memória leva uns 25 ms; guardá-la (uns 0,15–0,2 s, disputando a
        // CPU) fica para depois do "pronto".
        try {
          novaFoto = tirarMemoria(py, roda, preparo(m.modulos.api));
        } catch {
          novaFoto = null; // sem instantâneo desta vez: a próxima carga inicia do jeito normal
        }
      }
      marca("python");
      // os módulos do livro vieram na memória restaurada? (para os testes)
      naMemoria = Boolean(foto) && py.runPython(`import sys; ${JSON.stringify(m.modulos.api)} in sys.modules`);
      // Com o livro já importado na memória restaurada, a roda (os arquivos dela no site-packages,
      // que a memória não traz, e o registro) é instalada depois do "pronto", quando o leitor para
      // de mexer: 30–110 ms a menos antes dele. Os widgets não precisam dela para responder:
      // importar_todos importa todo o fecho de imports do navegador (tests/test_pacote.py).
      const instalar = () => py.loadPackage(m.roda.pacote, { messageCallback: () => {}, errorCallback: () => {} })
        .then(() => marca("roda"));
      if (!naMemoria) await instalar();
      const api = py.pyimport(m.modulos.api);
      const fmt = py.pyimport(m.modulos.formato);
      if (fmt.num(0.5, 1) !== "0,5") throw new Error("o Python não formata números");
      return { py, api, fmt, instalar: naMemoria ? instalar : null };
    };
    const foto = await lendoMemoria;
    // O runtime guardado confere com o manifesto (e um .wasm que não compila faria o Pyodide
    // abortar sem avisar): senão, recomeça dos pedaços.
    if (cru) await Promise.all([compilando, cru.confere]);
    marca("preparo"); // o runtime montado e a memória guardada lida
    let r = null;
    if (foto) {
      try {
        r = await subir(foto);
        memoria = "usado";
      } catch {
        // outro Pyodide, ou bytes estragados: apaga a memória e inicia do jeito normal
        await cache.delete(chaveFoto).catch(() => {});
      }
    }
    r ??= await subir(null);
    instalarDepois = r.instalar;
    py = r.py;
    const api = r.api;
    responder = api.responder_json;
    formato = r.fmt;
    // De onde veio o Python do livro (para os testes: a roda instalada, em bytecode).
    pacote = { nome: m.roda.pacote, arquivo: String(api.__file__), instalados: Object.keys(py.loadedPackages),
      naMemoria };
    bytecode = { tipo: "bytecode", ms: 0, bytes: m.roda.bytes + m.stdlib.gz.bytes, origem: "build" };
    marca("imports");
  } catch (e) {
    if (mjsFalhou) {
      return falhou("Sem conexão: não deu para baixar o Python dos widgets.", "rede", String(e?.message || e), true);
    }
    if (cru) {
      // o runtime descomprimido guardado pode ser a causa: apaga (e a memória) e recomeça dos pedaços;
      // um wasm do cache HTTP também: a marca passa a "faltou", e as próximas cargas não o usam
      await Promise.all([...Object.values(kc), chaveFoto].map((k) => cache.delete(k))).catch(() => {});
      if (wasmDe === "http") await cache.put(chaveMarcaHttp(m), new Response("faltou")).catch(() => {});
      desfazer?.();
      desfazer = null;
      memoria = "sem";
      return iniciar(m, true);
    }
    return falhou("O Python dos widgets não conseguiu iniciar neste navegador.", "python", String(e?.message || e));
  }
  estado = "pronto";
  ultimoPedido = performance.now(); // as primeiras respostas da página vêm logo: o que é de depois espera
  entregue = esperando.size > 0;
  const paginas = [...esperando];
  for (const p of paginas) pronto(p, false);
  esperando.clear();
  if (instalarDepois) {
    ocioso().then(() => {
      pacote.respostasAntes = respondidas; // as respostas dadas só com o livro da memória (testes)
      return instalarDepois();
    }).then(() => {
      pacote.instalados = Object.keys(py.loadedPackages);
    }, (e) => {
      // os widgets seguem com o livro da memória; a próxima carga busca a roda de novo
      pacote.erro = e.message;
      cache?.delete(chave(m.roda)).catch(() => {});
    }).finally(() => {
      for (const p of paginas) p.postMessage({ tipo: "instalado", pacote }); // para os testes
    });
  }
  // Depois do "pronto": o runtime descomprimido, se esta carga o montou dos pedaços (o .wasm é
  // descomprimido de novo aqui, uns 60 ms), e então a memória, em pedaços de 256 KB: entregá-la
  // de uma vez prendia este thread por até 90 ms (uma resposta pedida nessa hora esperava);
  // assim, uns 15 ms no máximo. Cada passo espera o leitor parar de mexer (ocioso). Um Worker
  // comum morre com a página: guarda logo. O compartilhado sobrevive a ela: espera 3 s, para não
  // disputar a CPU com a página seguinte de quem passa logo adiante. A memória vai depois do
  // runtime: com ela no cache, o resto também está. Por fim, num leitor que voltou, o .wasm no
  // cache HTTP (porNoHttp).
  const foto = novaFoto;
  novaFoto = null;
  const guardarCru = !cru && descomprime && cache && asm && stdlib;
  // Um leitor que voltou (o runtime veio do Cache API) e cujo wasm não veio do cache HTTP: o
  // .wasm inteiro é buscado uma vez (8,6 MB; menos pela rede, se o servidor o comprime),
  // conferido e marcado; a próxima carga compila dali. Só onde há o cache de código do V8 (os
  // navegadores do Chromium, os que têm `userAgentData`), e não com a economia de dados ligada.
  const nav = self.navigator;
  const porNoHttp = cru && !marcaHttp && Boolean(nav?.userAgentData) && !nav?.connection?.saveData;
  if (!foto && !guardarCru && !porNoHttp) return;
  setTimeout(async () => {
    try {
      if (guardarCru) {
        await ocioso();
        const wasm = await new Response(gz(partesWasm)).blob();
        await ocioso();
        await cache.put(kc.wasm, new Response(wasm, { headers: { "content-type": "application/wasm" } }));
        await cache.put(kc.asm, new Response(asm, { headers: { "content-type": "text/javascript" } }));
        await cache.put(kc.stdlib, new Response(stdlib, { headers: { "content-type": "application/zip" } }));
        await cache.put(chaveManifesto(m.versao), new Response(JSON.stringify(m),
          { headers: { "content-type": "application/json" } }));
      }
      if (foto) {
        const proximos = pedacosDaFoto(foto);
        const corpo = new Response(new ReadableStream({
          async pull(c) {
            await ocioso();
            const partes = proximos();
            if (!partes) return c.close();
            for (const p of partes) c.enqueue(p);
          },
        }), { headers: { "content-type": "application/octet-stream" } });
        await cache.put(chaveFoto, corpo);
        memoria = "feito";
        for (const p of paginas) p.postMessage({ tipo: "memoria", guardada: true });
      }
    } catch {
      // cota cheia: segue sem guardar
    }
    if (!porNoHttp) return;
    let guardado = false;
    try {
      await ocioso();
      const r = await fetchDaRede(urlWasmHttp(m));
      guardado = r.ok && await hashDe(await r.arrayBuffer()) === m.wasm.inteiro.hash;
      // não conferiu (ou o servidor não o tem): não se busca de novo nesta versão
      await cache.put(chaveMarcaHttp(m), new Response(guardado ? "confere" : "faltou"));
    } catch {
      // sem rede, ou cota cheia: a próxima carga compila do guardado, como nesta, e tenta de novo
    }
    for (const p of paginas) p.postMessage({ tipo: "wasmHttp", guardado }); // para os testes e o bench
  }, COMPARTILHADO ? 3000 : 0);
}

// "pronto" para uma página: antes, chama uma vez cada widget dela que este worker ainda não
// chamou (a primeira resposta ao leitor já sai rápida). reutilizado: o Python já estava
// carregado (por outra página, ou por esta antes de uma recarga).
function pronto(p, reutilizado) {
  try {
    for (const nome of p.nomes) {
      if (aquecidos.has(nome)) continue;
      responder(JSON.stringify({ widget: nome }));
      aquecidos.add(nome);
    }
  } catch (e) {
    p.postMessage({ tipo: "falhou", mensagem: "O Python dos widgets não conseguiu iniciar neste navegador.",
      motivo: "python", detalhe: String(e?.message || e) });
    return;
  }
  if (!fases.aquecido) marca("aquecido");
  const agora = performance.now();
  // uma carga que começou sozinha conta desde o começo dela, não desde o pedido da página
  const segundos = formato.num((agora - (reutilizado ? p.t : Math.min(p.t, inicioCarga))) / 1000, 1);
  p.postMessage({ tipo: "pronto", segundos, reutilizado, worker: ID, bytecode: true, pacote, memoria, runtime, wasm: wasmDe,
    sozinho, iniciarEm: Math.round(p.t - t0), // o "iniciar" desta página, em ms do worker (testes)
    nasceu: performance.timeOrigin + t0, // quando este worker começou a rodar, no relógio comum (bench)
    fases: reutilizado ? { aquecido: Math.round(agora - p.t) } : fases,
    bytes: reutilizado ? { rede: 0, cache: 0, total: progresso.total } : { ...progresso } });
  p.postMessage(bytecode);
  esquentar(p);
}

// Depois do "pronto": cada widget da página que este worker ainda não esquentou responde mais
// VEZES vezes ao pedido de partida, uma chamada por tarefa. O V8 recompila (TurboFan, noutros
// threads) as funções do wasm que esquentam, e num worker novo isso deixava lentas algumas das
// primeiras respostas (de ~1 ms para ~11 ms de Python, num traço com 2 núcleos); assim, isso
// acontece enquanto o leitor lê. Começa 250 ms depois (as primeiras respostas da página vêm
// antes) e cede a vez: com um pedido do leitor nos últimos 100 ms, espera; um pedido que chega
// no meio espera no máximo uma dessas chamadas.
const esquentados = new Set();
const VEZES = 12;
async function esquentar(p) {
  const novos = p.nomes.filter((n) => !esquentados.has(n));
  novos.forEach((n) => esquentados.add(n));
  let chamadas = 0;
  if (novos.length) await espera(250);
  for (let i = 0; i < VEZES; i++) {
    for (const nome of novos) {
      await espera(0);
      while (performance.now() - ultimoPedido < 100) await espera(50);
      try {
        responder(JSON.stringify({ widget: nome }));
        chamadas++;
      } catch {
        return;
      }
    }
  }
  p.postMessage({ tipo: "esquentado", chamadas }); // para os testes e o bench
}

function receber(p, data) {
  if (data.tipo === "iniciar") {
    p.nomes = data.widgets || [];
    p.t = performance.now();
    if (data.paradoMs) paradoMs = data.paradoMs;
    if (estado === "pronto") {
      // a carga que começou sozinha terminou antes de a página pedir: o "pronto" dela é desta página
      const reutilizado = entregue;
      entregue = true;
      return pronto(p, reutilizado);
    }
    // Um Python que não iniciou não tenta de novo neste worker (ele se fecha); uma falha de rede
    // ou do servidor, sim: a carga recomeça do que já está no Cache API.
    if (estado === "falhou" && mensagemFalha?.fechar) return p.postMessage({ tipo: "falhou", ...mensagemFalha });
    if (estado === "falhou") estado = "parado";
    esperando.add(p);
    if (estado === "carregando") {
      // chegou no meio da carga (outra aba, ou esta página recarregada): segue a mesma carga
      p.postMessage({ tipo: "progresso", ...progresso });
      if (iniciando) p.postMessage({ tipo: "fase", fase: "iniciando" });
      return;
    }
    estado = "carregando";
    iniciar(data.manifesto);
  } else if (data.tipo === "chamar") {
    ultimoPedido = performance.now();
    let resposta;
    const t = performance.now();
    try {
      resposta = JSON.parse(responder(JSON.stringify(data.pedido)));
    } catch {
      resposta = { erro: "O widget não conseguiu responder a este pedido. Experimente outros valores, ou «Recomeçar»." };
    }
    respondidas++;
    p.postMessage({ tipo: "resposta", id: data.id, resposta, pyMs: performance.now() - t });
  } else if (data.tipo === "desistir" && estado === "carregando") {
    // a página esperou o Python iniciar e passou do limite dela
    falhou(data.mensagem || "O Python não iniciou a tempo.");
  }
}

// Um leitor que já passou por aqui: o manifesto desta versão está no Cache API (guardado com o
// runtime descomprimido), e a carga começa já, quando o worker nasce. Antes, ela esperava o
// "iniciar" da página, que só sai depois de o manifesto ser revalidado na rede e de o thread da
// página, ocupado lendo o HTML, ficar livre (uns 70–190 ms de um Worker comum). A página manda o
// "iniciar" do mesmo jeito e entra nesta carga; se o site foi publicado de novo (outra versão), ela
// fecha este worker sem mandar nada (partida.js).
async function partirSozinho() {
  try {
    if (!VERSAO || !self.caches || typeof DecompressionStream !== "function") return;
    const r = await (await caches.open(CACHE)).match(chaveManifesto(VERSAO));
    const m = r ? await r.json() : null;
    if (m?.versao !== VERSAO || estado !== "parado") return;
    estado = "carregando";
    sozinho = true;
    iniciar(m);
  } catch {
    // sem o manifesto guardado (ou ilegível): espera o "iniciar" da página
  }
}
partirSozinho();

if (COMPARTILHADO) {
  self.onconnect = (ev) => {
    const p = ev.ports[0];
    p.onmessage = ({ data }) => receber(p, data);
  };
} else {
  const p = { postMessage: (msg) => postMessage(msg) };
  self.onmessage = ({ data }) => receber(p, data);
}
