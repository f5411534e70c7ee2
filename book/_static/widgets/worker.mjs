// O worker dos widgets: carrega o Pyodide (de _static/pyodide/, nunca de fora), grava no
// site-packages dele os mesmos arquivos do pacote `livro` que o build usa (_static/lab/livro/)
// e responde aos pedidos da página com livro.widgets.api.responder_json.
//
// O que ele busca está em _static/lab/manifesto.json (escrito por livro_ext.pos_build):
// nome, bytes e hash de cada arquivo. A carga foi feita para a rede de um celular:
// - cada arquivo vai para o Cache API do navegador assim que chega inteiro; o .wasm e o
//   pyodide.asm.mjs vêm em pedaços de gzip, então uma recarga continua do último pedaço
//   que chegou, e uma segunda página não baixa nada;
// - o progresso (bytes recebidos de quantos) vai para a página a cada pedaço de rede;
// - só desiste quando a rede para: nenhum byte em `paradoMs` (padrão 20 s);
// - o .wasm é montado aqui (gzip → DecompressionStream) e entregue ao Pyodide com o
//   tipo application/wasm: o tipo que o servidor manda não importa mais;
// - a biblioteca padrão é o zip enxuto do build; nenhum pyodide-lock.json é buscado.

const BASE = new URL("../", import.meta.url); // .../_static/
const CACHE = "livro-runtime";
const CONCORRENCIA = 2; // poucos pedidos de cada vez: numa recarga, no máximo 2 pedaços se perdem
let responder = null;
let paradoMs = 20_000;
const t0 = performance.now();
const fases = {};
const marca = (nome) => { fases[nome] = Math.round(performance.now() - t0); };

class Parou extends Error {}

function falhou(mensagem) {
  postMessage({ tipo: "falhou", mensagem });
}

const chave = (item) => new URL(`${item.url}?v=${item.hash}`, BASE).href;

// ---------------------------------------------------------------------------
// Buscar com progresso, cache e vigia de rede parada
const progresso = { rede: 0, cache: 0, total: 0 };
let ultimoAviso = 0;
function avisar(forcar) {
  const agora = performance.now();
  if (!forcar && agora - ultimoAviso < 100) return;
  ultimoAviso = agora;
  postMessage({ tipo: "progresso", ...progresso });
}

async function abrirCache(itens) {
  try {
    if (!self.caches) return null; // fora de um contexto seguro (http:// que não é local)
    const c = await caches.open(CACHE);
    const validos = new Set(itens.map(chave));
    for (const req of await c.keys()) if (!validos.has(req.url)) await c.delete(req);
    return c;
  } catch {
    return null;
  }
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
    if (!r.ok) throw new Error(`o servidor respondeu ${r.status} para _static/${item.url}`);
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
async function iniciar(nomes) {
  let m;
  try {
    const r = await fetch(new URL("lab/manifesto.json", BASE), { cache: "no-cache" });
    if (r.status === 404) {
      return falhou("O site não tem o runtime do Python (_static/lab/manifesto.json): o build não terminou.");
    }
    if (!r.ok) return falhou(`Não deu para buscar a lista do runtime do Python (HTTP ${r.status}).`);
    m = await r.json();
  } catch (e) {
    return falhou(`Não deu para buscar o runtime do Python (${e.message}).`);
  }
  marca("manifesto");
  const descomprime = typeof DecompressionStream === "function";
  const wasmItens = descomprime ? m.wasm.pedacos : [m.wasm.inteiro];
  const asmItens = descomprime ? m.asm.pedacos : [m.asm.inteiro];
  const stdlibItem = descomprime ? m.stdlib.gz : m.stdlib.inteiro;
  // O bytecode que uma página anterior compilou (ver gerarPyc): com ele, o Python não
  // recompila a biblioteca padrão nem os arquivos do livro, e nem precisa deles.
  const pycItem = { url: `pyodide/pyc-${m.versao}.zip`, hash: m.versao, bytes: 0 };
  const cache = await abrirCache([m.stdlib.gz, m.stdlib.inteiro, ...m.asm.pedacos, m.asm.inteiro, ...m.lab,
    ...m.wasm.pedacos, m.wasm.inteiro, pycItem]);
  let pyc = null;
  if (cache) {
    const r = await cache.match(chave(pycItem)).catch(() => null);
    if (r) pyc = new Uint8Array(await r.arrayBuffer());
  }
  const itens = [...asmItens, ...wasmItens, ...(pyc ? [] : [stdlibItem, ...m.lab])];
  progresso.total = itens.reduce((s, i) => s + i.bytes, 0);
  avisar(true);
  let dados;
  try {
    dados = await buscarTodos(itens, cache);
  } catch (e) {
    if (e instanceof Parou) {
      return falhou(`A rede parou: nenhum byte em ${Math.round(paradoMs / 1000)} s (chegaram ` +
        `${mib(progresso.rede + progresso.cache)} de ${mib(progresso.total)} MiB). Recarregue a página: ` +
        "o que já chegou fica guardado no navegador.");
    }
    return falhou(`Não deu para buscar o runtime do Python (${e.message}).`);
  }
  avisar(true);
  marca("baixado");
  postMessage({ tipo: "fase", fase: "iniciando" });
  const gz = (partes) => new Blob(partes).stream().pipeThrough(new DecompressionStream("gzip"));
  const partesAsm = dados.slice(0, asmItens.length);
  const asm = descomprime ? await new Response(gz(partesAsm)).blob() : new Blob(partesAsm);
  const resto = dados.slice(asmItens.length);
  const partesWasm = resto.slice(0, wasmItens.length);
  let stdlib;
  let lab = null;
  if (pyc) stdlib = new Blob([pyc]);
  else {
    const [s, ...l] = resto.slice(wasmItens.length);
    stdlib = descomprime ? await new Response(gz([s])).blob() : new Blob([s]);
    lab = l;
  }

  // O Pyodide busca `pyodide.asm.wasm` com fetch e compila em fluxo: entregamos o nosso.
  const respostaWasm = () => new Response(descomprime ? gz(partesWasm) : new Blob(partesWasm),
    { headers: { "content-type": "application/wasm" } });
  const fetchOriginal = self.fetch.bind(self);
  self.fetch = (recurso, opcoes) => {
    const u = typeof recurso === "string" ? recurso : (recurso.url || String(recurso));
    if (u.endsWith("/pyodide.asm.wasm")) return Promise.resolve(respostaWasm());
    return fetchOriginal(recurso, opcoes);
  };
  const instancia = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async (...a) => {
    const r = await instancia(...a);
    marca("wasm");
    return r;
  };

  let py;
  try {
    const { loadPyodide } = await import("../pyodide/pyodide.mjs");
    const urlAsm = URL.createObjectURL(new Blob([asm], { type: "text/javascript" }));
    let createPyodideModule;
    try {
      createPyodideModule = (await import(urlAsm)).default;
    } catch {
      createPyodideModule = undefined; // o Pyodide importa o arquivo ele mesmo
    }
    py = await loadPyodide({
      indexURL: new URL("pyodide/", BASE).href,
      stdLibURL: URL.createObjectURL(stdlib),
      lockFileContents: { info: m.lock_info, packages: {} },
      createPyodideModule,
      stdout: () => {}, stderr: () => {},
    });
    marca("python");
    if (lab) {
      // o pacote livro no site-packages (já está no caminho do Python): "livro/widgets/api.py"
      const site = py.runPython("import sys; '/lib/python%d.%d/site-packages' % sys.version_info[:2]");
      m.lab.forEach((item, i) => {
        py.FS.mkdirTree(`${site}/${item.nome.slice(0, item.nome.lastIndexOf("/"))}`);
        py.FS.writeFile(`${site}/${item.nome}`, lab[i]);
      });
      // o leitor de pasta do site-packages, guardado sem o livro/, lê a pasta de novo
      // (importlib.invalidate_caches() puxaria o importlib.metadata, que a biblioteca enxuta não tem)
      py.runPython(`import sys; sys.path_importer_cache.pop(${JSON.stringify(site)}, None)`);
    }
    const api = py.pyimport("livro.widgets.api");
    responder = api.responder_json;
    marca("imports");
    // Aquece cada widget da página uma vez: a primeira resposta ao leitor já sai rápida.
    for (const nome of nomes) responder(JSON.stringify({ widget: nome }));
    marca("aquecido");
    const formato = py.pyimport("livro.formato");
    const segundos = formato.num((performance.now() - t0) / 1000, 1);
    postMessage({ tipo: "pronto", segundos, fases, bytes: { ...progresso }, bytecode: Boolean(pyc) });
  } catch (e) {
    if (pyc && cache) await cache.delete(chave(pycItem)).catch(() => {});
    return falhou(`Não deu para iniciar o Python: ${e.message}`);
  }
  if (!pyc && cache) setTimeout(() => gerarPyc(py, m, cache, chave(pycItem)), 500);
}

// Depois de pronto, sem pressa: compila para bytecode cada arquivo da biblioteca padrão
// e do livro, um por vez (os pedidos do leitor passam entre um e outro), e guarda o zip
// no cache. Na próxima página, o Python inicia sem compilar nada.
async function gerarPyc(py, m, cache, url) {
  const t = performance.now();
  try {
    const ns = py.toPy({});
    py.runPython(`
import io, sys, zipfile, importlib.util
from importlib._bootstrap_external import _code_to_hash_pyc
_zip = "/lib/python%d%d.zip" % sys.version_info[:2]
_src = zipfile.ZipFile(_zip, metadata_encoding="utf-8")
_buf = io.BytesIO()
_out = zipfile.ZipFile(_buf, "w")
def um(nome, caminho, fonte):
    codigo = compile(fonte, caminho, "exec", dont_inherit=True)
    info = zipfile.ZipInfo(nome[:-3] + ".pyc", (2020, 1, 1, 0, 0, 0))
    _out.writestr(info, bytes(_code_to_hash_pyc(codigo, importlib.util.source_hash(fonte), False)))
def da_stdlib(nome):
    um(nome, _zip + "/" + nome, _src.read(nome))
_site = "/lib/python%d.%d/site-packages/" % sys.version_info[:2]
def do_livro(nome):
    with open(_site + nome, "rb") as f:
        um(nome, _site + nome, f.read())
def fim():
    _out.close()
    return _buf.getvalue()
nomes = [n for n in _src.namelist() if n.endswith(".py")]
`, { globals: ns });
    const nomes = ns.get("nomes").toJs();
    for (const nome of nomes) {
      ns.get("da_stdlib")(nome);
      await new Promise((ok) => setTimeout(ok, 0));
    }
    for (const item of m.lab) {
      ns.get("do_livro")(item.nome);
      await new Promise((ok) => setTimeout(ok, 0));
    }
    const zip = ns.get("fim")().toJs();
    ns.destroy();
    await cache.put(url, new Response(zip, { headers: { "content-type": "application/zip" } }));
    postMessage({ tipo: "bytecode", ms: Math.round(performance.now() - t), bytes: zip.length });
  } catch (e) {
    postMessage({ tipo: "bytecode", erro: String(e.message || e) });
  }
}

self.onmessage = ({ data }) => {
  if (data.tipo === "iniciar") {
    if (data.paradoMs) paradoMs = data.paradoMs;
    iniciar(data.widgets || []);
  } else if (data.tipo === "chamar") {
    let resposta;
    const t = performance.now();
    try {
      resposta = JSON.parse(responder(JSON.stringify(data.pedido)));
    } catch {
      resposta = { erro: "O widget não conseguiu responder a este pedido. Recarregue a página." };
    }
    postMessage({ tipo: "resposta", id: data.id, resposta, pyMs: performance.now() - t });
  }
};
