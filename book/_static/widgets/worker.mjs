// O worker dos widgets: carrega o Pyodide (de _static/pyodide/, nunca de fora),
// põe no sistema de arquivos dele os mesmos arquivos Python do livro
// (_static/lab/*.py) e responde aos pedidos da página com widgets_api.responder_json.

const BASE = new URL("../", import.meta.url); // .../_static/
const LAB = ["brinquedo.py", "formato.py", "widgets_api.py"];
const LAB_OPCIONAL = ["arquitetura.py"];
let responder = null;

function falhou(mensagem) {
  postMessage({ tipo: "falhou", mensagem });
}

async function conferirWasm() {
  // Um .wasm servido com outro tipo faz loadPyodide() esperar para sempre: avise antes.
  let r;
  try {
    r = await fetch(new URL("pyodide/pyodide.asm.wasm", BASE), { method: "HEAD" });
  } catch (e) {
    return `Não deu para buscar o runtime do Python (${e.message}).`;
  }
  if (r.status === 404) {
    return "O site não tem o runtime do Python (_static/pyodide/pyodide.asm.wasm): " +
      "rode book/_ext/pos_build.py depois do build.";
  }
  const tipo = (r.headers.get("content-type") || "").split(";")[0].trim();
  if (r.ok && tipo && tipo !== "application/wasm") {
    return `O servidor manda o .wasm como "${tipo}", e o Python precisa de "application/wasm". ` +
      "Use um servidor que conheça o tipo (por exemplo, `make serve`).";
  }
  return null;
}

async function lerLab(nome, opcional) {
  const r = await fetch(new URL(`lab/${nome}`, BASE));
  if (!r.ok) {
    if (opcional) return null;
    throw new Error(`faltou _static/lab/${nome} (HTTP ${r.status})`);
  }
  return r.text();
}

async function iniciar(nomes) {
  const t0 = performance.now();
  const problema = await conferirWasm();
  if (problema) return falhou(problema);
  let py;
  try {
    const { loadPyodide } = await import("../pyodide/pyodide.mjs");
    const [codigo, py_] = await Promise.all([
      Promise.all([...LAB.map((n) => lerLab(n, false)), ...LAB_OPCIONAL.map((n) => lerLab(n, true))]),
      loadPyodide({ indexURL: new URL("pyodide/", BASE).href, stdout: () => {}, stderr: () => {} }),
    ]);
    py = py_;
    py.FS.mkdirTree("/home/pyodide/lab");
    [...LAB, ...LAB_OPCIONAL].forEach((nome, i) => {
      if (codigo[i] !== null) py.FS.writeFile(`/home/pyodide/lab/${nome}`, codigo[i]);
    });
    py.runPython("import sys; sys.path.insert(0, '/home/pyodide/lab')");
    const api = py.pyimport("widgets_api");
    responder = api.responder_json;
    // Aquece cada widget da página uma vez: a primeira resposta ao leitor já sai rápida.
    for (const nome of nomes) responder(JSON.stringify({ widget: nome }));
    const formato = py.pyimport("formato");
    const segundos = formato.num((performance.now() - t0) / 1000, 1);
    postMessage({ tipo: "pronto", segundos });
  } catch (e) {
    falhou(`Não deu para carregar o Python: ${e.message}`);
  }
}

self.onmessage = ({ data }) => {
  if (data.tipo === "iniciar") iniciar(data.widgets || []);
  else if (data.tipo === "chamar") {
    let resposta;
    const t0 = performance.now();
    try {
      resposta = JSON.parse(responder(JSON.stringify(data.pedido)));
    } catch (e) {
      resposta = { erro: `Erro inesperado no widget (${e.message}).` };
    }
    postMessage({ tipo: "resposta", id: data.id, resposta, pyMs: performance.now() - t0 });
  }
};
