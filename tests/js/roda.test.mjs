// A roda (wheel) do livro no site: registrada no pyodide-lock.json do site pelo
// pyodide-build, só com bytecode do Python do runtime, e instalada com loadPackage.
//
// Precisa do site construído (make book; ou LIVRO_HTML=pasta). Roda offline: o Pyodide
// vem de node_modules/pyodide, e a roda, o lock e a biblioteca padrão, do site.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";
import { loadPyodide } from "pyodide";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const HTML = resolve(process.env.LIVRO_HTML || join(RAIZ, "_build", "html"));
const PYTHON = process.env.PYTHON || join(RAIZ, ".venv", "bin", "python");
const SITE = join(HTML, "_static", "pyodide");
const INDEX = join(RAIZ, "node_modules", "pyodide") + "/";

let manifesto;
let lock;
let py;
let pacote;

before(async () => {
  assert.ok(existsSync(join(SITE, "manifesto.json")),
    `falta o runtime do Python em ${SITE}: rode \`make book\` (ou defina LIVRO_HTML)`);
  manifesto = JSON.parse(readFileSync(join(SITE, "manifesto.json"), "utf8"));
  lock = JSON.parse(readFileSync(join(HTML, "_static", manifesto.lock.url), "utf8"));
  pacote = lock.packages[manifesto.roda.pacote];
  // O Pyodide como o worker o monta: a biblioteca padrão e o lock do site.
  py = await loadPyodide({ indexURL: INDEX, stdout: () => {}, stderr: () => {},
    stdLibURL: join(HTML, "_static", manifesto.stdlib.inteiro.url),
    lockFileURL: join(HTML, "_static", manifesto.lock.url), packageBaseUrl: SITE + "/" });
});

const minorDo = (versao) => versao.split(".").slice(0, 2).join("");

test("o pyodide-lock.json do site registra a roda do livro (e só ela), para o Python do runtime", () => {
  const doNpm = JSON.parse(readFileSync(join(INDEX, "pyodide-lock.json"), "utf8"));
  assert.deepEqual(lock.info, doNpm.info, "o lock do site é de outro Pyodide");
  assert.deepEqual(Object.keys(lock.packages), [manifesto.roda.pacote]);
  assert.ok(pacote, `o lock não tem ${manifesto.roda.pacote}`);
  assert.equal(`pyodide/${pacote.file_name}`, manifesto.roda.url);
  assert.match(pacote.file_name, new RegExp(`-cp${minorDo(lock.info.python)}-none-any\\.whl$`));
  const roda = readFileSync(join(SITE, pacote.file_name));
  assert.equal(createHash("sha256").update(roda).digest("hex"), pacote.sha256, "sha256 do lock ≠ da roda");
  const topo = manifesto.modulos.api.split(".")[0];
  assert.deepEqual(pacote.imports, [topo], `o lock não diz que a roda traz o pacote ${topo}`);
});

test("a roda e a biblioteca padrão do site só têm bytecode, do Python do runtime", () => {
  py.FS.writeFile("/tmp/roda.whl", readFileSync(join(SITE, pacote.file_name)));
  const r = JSON.parse(py.runPython(`
import importlib.util, json, sys, zipfile
def olha(caminho):
    with zipfile.ZipFile(caminho) as z:
        nomes = z.namelist()
        pyc = [n for n in nomes if n.endswith(".pyc")]
        return {"py": [n for n in nomes if n.endswith(".py")], "pyc": len(pyc),
                "magia_errada": [n for n in pyc if z.read(n)[:4] != importlib.util.MAGIC_NUMBER]}
json.dumps({"roda": olha("/tmp/roda.whl"), "stdlib": olha("/lib/python%d%d.zip" % sys.version_info[:2]),
            "versao": "%d.%d" % sys.version_info[:2]})`));
  assert.equal(r.versao.replace(".", ""), minorDo(lock.info.python));
  for (const qual of ["roda", "stdlib"]) {
    assert.deepEqual(r[qual].py, [], `${qual}: arquivos .py (fonte) no site`);
    assert.ok(r[qual].pyc >= (qual === "roda" ? pacote.imports.length : 50), `${qual}: só ${r[qual].pyc} .pyc`);
    assert.deepEqual(r[qual].magia_errada, [], `${qual}: bytecode de outro Python`);
  }
});

test("loadPackage instala a roda do lock do site, e um widget responde como no CPython", async () => {
  await py.loadPackage(manifesto.roda.pacote, { messageCallback: () => {}, errorCallback: () => {} });
  assert.deepEqual(Object.keys(py.loadedPackages), [manifesto.roda.pacote]);
  const api = py.pyimport(manifesto.modulos.api);
  assert.match(String(api.__file__), /\/site-packages\/.+\.pyc$/);
  const pedido = JSON.stringify({ widget: "tokens", campos: { texto: "o gato subiu no" } });
  const noPyodide = JSON.parse(api.responder_json(pedido));
  const noCPython = JSON.parse(execFileSync(PYTHON, ["-c",
    `import sys, ${manifesto.modulos.api} as a; print(a.responder_json(sys.stdin.read()))`],
  { input: pedido, encoding: "utf8" }));
  assert.ok(noPyodide.html && !noPyodide.erro, JSON.stringify(noPyodide).slice(0, 200));
  assert.deepEqual(noPyodide, noCPython);
});

test("o worker instala a roda do livro com loadPackage, a partir do lock do site", () => {
  const worker = readFileSync(join(HTML, "_static", "widgets", "worker.mjs"), "utf8");
  assert.match(worker, /lockFileContents: lock/);
  assert.match(worker, /\bpy\.loadPackage\(m\.roda\.pacote/);
  assert.doesNotMatch(worker, /FS\.writeFile|sys\.path/, "o worker ainda põe arquivos do livro à mão");
  // antes do instantâneo da memória, a mesma roda aberta pela API do Pyodide (nada além dela),
  // em pyodide_privado.mjs (tirarMemoria), o único lugar que fala com a API privada
  const privado = readFileSync(join(HTML, "_static", "widgets", "pyodide_privado.mjs"), "utf8");
  const codigo = worker.replace(/\/\/.*$/gm, ""); // sem os comentários
  assert.doesNotMatch(codigo, /unpackArchive|makeMemorySnapshot|_loadSnapshot|_makeSnapshot|instantiateStreaming =|self\.fetch =/);
  assert.match(worker, /tirarMemoria\(py, roda, /);
  assert.deepEqual([...privado.matchAll(/unpackArchive\(([^)]*)\)/g)].map((x) => x[1]), ['roda, "wheel", { extractDir: sitePackages }']);
});

test("build reprodutível: a roda, o lock e a biblioteca padrão saem com os mesmos bytes de novo", () => {
  // o site veio do make book; aqui, o mesmo pyodide-build minutos depois, noutra pasta. Com a
  // hora do build nos .pyc ou nas datas do zip, a versão do site mudaria a cada build, e o
  // leitor baixaria de novo o que não mudou.
  const pasta = mkdtempSync(join(tmpdir(), "livro-roda-"));
  try {
    // sem o cache do build (livro_ext/execucao/guardado.py): o pyodide-build roda de novo, de verdade
    const feitos = JSON.parse(execFileSync(PYTHON, ["-m", "livro_ext.widgets.pos_build", "--roda", pasta],
      { encoding: "utf8", env: { ...process.env, LIVRO_SEM_GUARDADO: "1" } }));
    const sha = (caminho) => createHash("sha256").update(readFileSync(caminho)).digest("hex");
    assert.equal(sha(feitos.roda), sha(join(SITE, pacote.file_name)), "a roda mudou sem o código mudar");
    assert.equal(sha(feitos.lock), sha(join(HTML, "_static", manifesto.lock.url)), "o lock mudou");
    assert.equal(sha(feitos.stdlib), sha(join(HTML, "_static", manifesto.stdlib.inteiro.url)), "a stdlib mudou");
  } finally {
    rmSync(pasta, { recursive: true, force: true });
  }
  // e cada .pyc traz o hash da fonte no cabeçalho (PEP 552), não uma hora
  py.FS.writeFile("/tmp/roda.whl", readFileSync(join(SITE, pacote.file_name)));
  const r = JSON.parse(py.runPython(`
import json, sys, zipfile
def flags(caminho):
    with zipfile.ZipFile(caminho) as z:
        return sorted({int.from_bytes(z.read(n)[4:8], "little") for n in z.namelist() if n.endswith(".pyc")})
json.dumps({"roda": flags("/tmp/roda.whl"), "stdlib": flags("/lib/python%d%d.zip" % sys.version_info[:2])})`));
  assert.deepEqual(r, { roda: [3], stdlib: [3] });
});
