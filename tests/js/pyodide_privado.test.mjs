// A API privada do Pyodide que o worker dos widgets usa (book/_static/widgets/pyodide_privado.mjs)
// ainda vale para o Pyodide instalado. Ao trocar a versão do Pyodide (package.json), este teste
// falha dizendo a versão e qual peça mudou, antes de o site quebrar no navegador.
//
// Roda offline, no Node, com o Pyodide de node_modules e a roda do livro (livro_ext.widgets.pos_build --roda).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "pyodide";
import * as privado from "../../book/_static/widgets/pyodide_privado.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PYTHON = process.env.PYTHON || join(RAIZ, ".venv", "bin", "python");
const PASTA = join(RAIZ, "node_modules", "pyodide");
const INSTALADO = JSON.parse(readFileSync(join(PASTA, "package.json"), "utf8")).version;
const MANIFESTO = JSON.parse(execFileSync(PYTHON, ["-m", "livro_ext.widgets.pos_build", "--manifesto"], { encoding: "utf8" }));
const PREPARO = `import importlib\nimportlib.import_module(${JSON.stringify(MANIFESTO.modulos.api)}).importar_todos()`;
// Toda falha diz a versão: quem trocou o Pyodide sabe o que conferir.
const mudou = (peca) => `a API privada do Pyodide ${INSTALADO} mudou (${peca}): confira ` +
  "book/_static/widgets/pyodide_privado.mjs e atualize PYODIDE lá";

let roda; // a pasta com a roda do livro e o lock
let bytesRoda;

before(() => {
  assert.ok(existsSync(PYTHON), `falta ${PYTHON}: rode \`make setup\``);
  roda = mkdtempSync(join(tmpdir(), "roda-privado-"));
  const feitos = JSON.parse(execFileSync(PYTHON, ["-m", "livro_ext.widgets.pos_build", "--roda", roda], { encoding: "utf8" }));
  bytesRoda = new Uint8Array(readFileSync(feitos.roda)); // como no worker (um Buffer o Pyodide recusa)
});

const carregar = (opcoes) => loadPyodide({ indexURL: PASTA + "/", stdout: () => {}, stderr: () => {},
  lockFileURL: join(roda, "pyodide-lock.json"), packageBaseUrl: roda + "/", ...opcoes });

test("o Pyodide instalado é a versão para a qual pyodide_privado.mjs foi escrito", () => {
  assert.equal(privado.PYODIDE, INSTALADO, `o package.json fixa o Pyodide ${INSTALADO}, e pyodide_privado.mjs ` +
    `foi escrito para o ${privado.PYODIDE}: rode os testes deste arquivo e os de navegador, e atualize PYODIDE`);
});

test("o código do Pyodide ainda tem as peças que os remendos usam", () => {
  const mjs = readFileSync(join(PASTA, "pyodide.mjs"), "utf8");
  const asm = readFileSync(join(PASTA, "pyodide.asm.js"), "utf8");
  assert.match(mjs, /typeof _createPyodideModule\s*!=\s*"function"/, mudou("o loadPyodide não confere mais _createPyodideModule"));
  assert.match(mjs, /_loadSnapshot/, mudou("a opção _loadSnapshot sumiu do loadPyodide"));
  assert.match(asm, /_createPyodideModule/, mudou("o pyodide.asm.js não define _createPyodideModule"));
  assert.match(asm, /"pyodide\.asm\.wasm"/, mudou("o nome pyodide.asm.wasm"));
  assert.match(asm, /instantiateStreaming/, mudou("o wasm não passa por WebAssembly.instantiateStreaming"));
  assert.match(asm, /makeMemorySnapshot/, mudou("makeMemorySnapshot sumiu"));
  assert.match(asm, /_makeSnapshot/, mudou("a opção _makeSnapshot sumiu"));
});

test("a memória do Python: tirar (com o livro importado) e restaurar num Python novo", async () => {
  const py = await carregar(privado.opcoesDaMemoria(null, true));
  privado.conferirVersao(py);
  let foto;
  try {
    foto = privado.tirarMemoria(py, bytesRoda, PREPARO);
  } catch (e) {
    assert.fail(mudou(`tirar a memória: ${e.message}`));
  }
  assert.ok(foto instanceof Uint8Array && foto.length > 1 << 20, mudou("makeMemorySnapshot não devolve os bytes da memória"));
  const py2 = await carregar(privado.opcoesDaMemoria(foto));
  assert.equal(py2.runPython(`import sys; ${JSON.stringify(MANIFESTO.modulos.api)} in sys.modules`), true,
    mudou("a memória restaurada não traz os módulos importados antes dela"));
  const r = JSON.parse(py2.runPython(`import ${MANIFESTO.modulos.api} as a; a.responder_json('{"widget": "tokens"}')`));
  assert.ok(r.html && !r.erro, mudou("o Python restaurado não responde"));
});

test("conferirVersao recusa outro Pyodide, com as duas versões na mensagem", () => {
  assert.throws(() => privado.conferirVersao({ version: "0.0.1" }), new RegExp(`${privado.PYODIDE}.*0\\.0\\.1`));
  assert.doesNotThrow(() => privado.conferirVersao({ version: privado.PYODIDE }));
});

test("remendar: o fetch do wasm e dos arquivos dados vem de nós, o resto passa; instantiateStreaming usa o módulo compilado; desfazer volta tudo", async () => {
  // o menor módulo wasm: o cabeçalho, sem seções
  const modulo = await WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  const pedidos = [];
  const escopo = { fetch: async (u) => { pedidos.push(u); return new Response("da rede"); } };
  const antes = WebAssembly.instantiateStreaming;
  let instanciou = 0;
  const desfazer = privado.remendar(escopo, { wasm: () => new Response("wasm"), arquivos: { "http://x/roda.whl": "roda" },
    compilando: Promise.resolve(modulo), aoInstanciar: () => instanciou++ });
  assert.equal(await (await escopo.fetch("http://x/a/pyodide.asm.wasm")).text(), "wasm");
  assert.equal(await (await escopo.fetch("http://x/roda.whl")).text(), "roda");
  assert.equal(await (await escopo.fetch("http://x/outro")).text(), "da rede");
  assert.deepEqual(pedidos, ["http://x/outro"]);
  const { module, instance } = await WebAssembly.instantiateStreaming(null, {});
  assert.equal(module, modulo);
  assert.ok(instance instanceof WebAssembly.Instance);
  assert.equal(instanciou, 1);
  desfazer();
  assert.equal(WebAssembly.instantiateStreaming, antes);
  assert.equal(await (await escopo.fetch("http://x/a/pyodide.asm.wasm")).text(), "da rede");
});
