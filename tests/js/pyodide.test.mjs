// O brinquedo no Pyodide (o Python dos widgets) dá os mesmos números que no CPython.
//
// Roda offline: o Pyodide vem de node_modules/pyodide, e o Python do livro é a roda que o
// build faz (livro_ext.widgets.pos_build --roda: pyodide-build compila e registra num lock),
// instalada com loadPackage como no navegador. A referência é calculada na
// hora pelo CPython do projeto (.venv/bin/python) rodando os mesmos casos
// (tests/js/casos.py); nada de número copiado aqui.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { loadPyodide } from "pyodide";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PYTHON = process.env.PYTHON || join(RAIZ, ".venv", "bin", "python");
const POS_BUILD = ["-m", "livro_ext.widgets.pos_build"];
const CASOS = join(RAIZ, "tests", "js", "casos.py");
// A única lista dos arquivos Python do navegador (derivada dos imports de livro.widgets,
// caminhos como "livro/widgets/api.py"; pos_build.py).
const MANIFESTO = JSON.parse(execFileSync(PYTHON, [...POS_BUILD, "--manifesto"], { encoding: "utf8" }));
const LAB = MANIFESTO.lab;
// o site-packages do Pyodide, onde o loadPackage instala a roda do livro
const SITE = "import sys; '/lib/python%d.%d/site-packages' % sys.version_info[:2]";
const INDEX = join(RAIZ, "node_modules", "pyodide") + "/";

let cpython;
let pyodide;
let py;
let enxuta; // os mesmos casos contra o zip enxuto que vai para o site
let modulosUsados;
let roda; // a pasta com a roda do livro, o pyodide-lock.json e a biblioteca padrão compilada

function rodaCPython() {
  // o pacote livro vem da instalação do .venv; casos.py, da pasta de trabalho (python -c)
  return JSON.parse(execFileSync(PYTHON, ["-c", "import casos; print(casos.casos())"],
    { encoding: "utf8", maxBuffer: 64 << 20, cwd: dirname(CASOS) }));
}

async function pyodideCom(opcoes) {
  const p = await loadPyodide({ indexURL: INDEX, stdout: () => {}, stderr: () => {},
    lockFileURL: join(roda, "pyodide-lock.json"), packageBaseUrl: roda + "/", ...opcoes });
  // como o worker: a roda do livro, do lock que o pyodide-build escreveu
  await p.loadPackage(MANIFESTO.pacote, { messageCallback: () => {}, errorCallback: () => {} });
  // casos.py (os pedidos dos testes) entra como módulo carregado do arquivo, sem mexer em caminhos
  p.FS.writeFile("/tmp/casos.py", readFileSync(CASOS, "utf8"));
  p.runPython([
    "import importlib.util, sys",
    "spec = importlib.util.spec_from_file_location('casos', '/tmp/casos.py')",
    "casos = importlib.util.module_from_spec(spec)",
    "sys.modules['casos'] = casos",
    "spec.loader.exec_module(casos)",
  ].join("\n"));
  return p;
}

before(async () => {
  assert.ok(existsSync(PYTHON), `falta ${PYTHON}: rode \`make setup\``);
  cpython = rodaCPython();
  roda = mkdtempSync(join(tmpdir(), "roda-"));
  execFileSync(PYTHON, [...POS_BUILD, "--roda", roda]);
  py = await pyodideCom({});
  pyodide = JSON.parse(py.runPython("import casos; casos.casos()"));
  // Os arquivos da biblioteca padrão que os casos (todos os widgets) de fato importaram.
  modulosUsados = py.runPython(`
import sys
_z = "/lib/python%d%d.zip/" % sys.version_info[:2]
sorted({m.__file__[len(_z):] for m in list(sys.modules.values())
        if (getattr(m, "__file__", None) or "").startswith(_z)})`).toJs();
  // A biblioteca padrão do site: só a lista, já em bytecode (pyodide py-compile).
  const p2 = await pyodideCom({ stdLibURL: join(roda, "python_stdlib.zip") });
  enxuta = JSON.parse(p2.runPython("import casos; casos.casos()"));
});

// Floats: a libm do Pyodide (musl) pode diferir da do CPython no último bit; texto: igual.
function compara(a, b, caminho, difs) {
  if (typeof a === "number" && typeof b === "number") {
    if (!(a === b || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b)))) difs.push(`${caminho}: ${a} ≠ ${b}`);
  } else if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) difs.push(`${caminho}: tamanho ${a.length} ≠ ${b.length}`);
    else a.forEach((x, i) => compara(x, b[i], `${caminho}[${i}]`, difs));
  } else if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    assert.deepEqual(ka, kb, `${caminho}: chaves diferentes`);
    for (const k of ka) compara(a[k], b[k], `${caminho}.${k}`, difs);
  } else if (a !== b) difs.push(`${caminho}: ${JSON.stringify(a).slice(0, 200)} ≠ ${JSON.stringify(b).slice(0, 200)}`);
}

test("o Pyodide é o Python que os widgets usam (3.x, só a roda do livro)", () => {
  const versao = py.runPython("import sys; '%d.%d' % sys.version_info[:2]");
  assert.match(versao, /^3\.\d+$/);
  assert.equal(py.runPython("import sys; 'numpy' in sys.modules"), false);
  assert.deepEqual(Object.keys(py.loadedPackages), [MANIFESTO.pacote]);
});

test("o pacote livro vem do site-packages do Pyodide (a roda, em bytecode), sem mexer no sys.path", () => {
  const site = py.runPython(SITE);
  assert.ok(py.runPython(`import sys; ${JSON.stringify(site)} in sys.path`));
  assert.equal(py.runPython("import livro.widgets.api as a; a.__file__"), `${site}/livro/widgets/api.pyc`);
  assert.ok(LAB.includes("livro/__init__.py") && LAB.includes("livro/widgets/api.py"));
});

test("as mesmas chaves de casos nos dois lados", () => {
  assert.deepEqual(Object.keys(pyodide).sort(), Object.keys(cpython).sort());
});

for (const grupo of ["modelo", "modelo_sem_atencao", "modelo_sem_mascara", "perdas", "cache", "gerar",
  "gerar_amostra", "formato", "formato_int", "arquitetura"]) {
  test(`Pyodide = CPython: ${grupo}`, () => {
    const difs = [];
    compara(pyodide[grupo], cpython[grupo], grupo, difs);
    assert.deepEqual(difs, []);
  });
}

test("Pyodide = CPython: escolher, mini-bloco, tokenizar e valida_config em todos os casos", () => {
  const chaves = Object.keys(cpython).filter((k) => /^(escolher_|mini_|tokenizar\[|valida_)/.test(k));
  assert.ok(chaves.length >= 15, "casos demais sumiram");
  const difs = [];
  for (const k of chaves) compara(pyodide[k], cpython[k], k, difs);
  assert.deepEqual(difs, []);
});

test("Pyodide = CPython: cada resposta dos widgets (HTML e mensagens, caractere a caractere)", () => {
  assert.equal(pyodide.widgets.length, cpython.widgets.length);
  cpython.widgets.forEach((esperado, i) => {
    assert.deepEqual(pyodide.widgets[i], esperado, `pedido ${i}`);
  });
});

test("o widget de geração no Pyodide anexa os tokens de brinquedo.gerar no CPython, um u por passo", () => {
  // A referência vem do brinquedo chamado direto (b.gerar, no CPython), não do widget.
  assert.ok(cpython.gerar_varios.length >= 3);
  assert.deepEqual(pyodide.widget_geracao, cpython.gerar_varios);
  assert.deepEqual(cpython.widget_geracao, cpython.gerar_varios);
  // Os sorteios importam: as gerações não são todas iguais à gulosa.
  assert.ok(cpython.gerar_varios.some((g) => JSON.stringify(g) !== JSON.stringify(cpython.gerar_varios.at(-1))));
});

test("no Pyodide, cada opção das listas do widget de embeddings dá x = E[token] + P[posição] do CPython", () => {
  // A referência é o brinquedo no CPython (E e P); a resposta, o widget no Pyodide.
  const E = cpython.pesos.E;
  const P = cpython.pesos.P;
  const respostas = pyodide.embeddings_todos;
  assert.equal(respostas.length, E.length * P.length);
  for (const r of respostas) {
    assert.equal(r.erro, undefined, `token ${r.token}, posição ${r.posicao}: ${r.erro}`);
    const esperado = E[r.token].map((e, j) => e + P[r.posicao - 1][j]);
    r.x.forEach((v, j) => assert.ok(Math.abs(v - esperado[j]) <= 5e-4, `token ${r.token}, posição ${r.posicao}`));
  }
});

test("os erros de entrada viram mensagens em português, nunca exceções", () => {
  const erros = cpython.widgets.filter((r) => r.erro).map((r) => r.erro);
  assert.ok(erros.length >= 10);
  for (const e of erros) {
    assert.doesNotMatch(e, /Traceback|Erro inesperado/);
  }
  // As mensagens do próprio módulo chegam ao leitor sem mudança.
  assert.ok(erros.includes(cpython["valida_T0"].msg));
  assert.ok(erros.includes(cpython["valida_p0"].msg));
  assert.ok(erros.includes(cpython["valida_k13"].msg));
  assert.ok(erros.includes(cpython["tokenizar[o cachorro]"].msg));
});

test("a biblioteca padrão enxuta tem tudo o que os casos dos widgets importam (pos_build.stdlib_usada)", () => {
  const zip = execFileSync(PYTHON, ["-c", "import sys, zipfile; print(*zipfile.ZipFile(sys.argv[1]).namelist())",
    join(roda, "python_stdlib.zip")], { encoding: "utf8" });
  const lista = new Set(zip.split(/\s+/).map((n) => n.replace(/\.pyc$/, ".py")));
  const faltam = modulosUsados.filter((f) => !lista.has(f));
  assert.deepEqual(faltam, [],
    `importe-os no topo de um módulo de livro.widgets (pos_build.stdlib_usada): ${faltam.join(", ")}`);
});

test("com a biblioteca padrão enxuta, os widgets respondem o mesmo (todos os casos)", () => {
  const difs = [];
  compara(enxuta, cpython, "enxuta", difs);
  assert.deepEqual(difs, []);
});
