// Um servidor estático mínimo para o site construído, só em 127.0.0.1 (testes e benchmark).
// Tipos certos para .wasm e .mjs; `tipos` troca um tipo de propósito (o teste do .wasm errado).
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { launch } from "./chromium.mjs";

export { launch };

const TIPOS = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript",
  ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm", ".zip": "application/zip",
  ".py": "text/x-python; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png", ".woff2": "font/woff2",
  ".woff": "font/woff", ".ttf": "font/ttf", ".ico": "image/x-icon", ".txt": "text/plain; charset=utf-8",
  ".map": "application/json", ".inv": "application/octet-stream",
};

// tipos: troca o tipo de uma extensão; pendurar: extensões cujo GET nunca responde
// (o teste do carregamento que trava). Cache de 10 min, como no GitHub Pages.
export async function servir(raiz, { tipos = {}, pendurar = [] } = {}) {
  const base = resolve(raiz);
  const servidor = createServer(async (req, res) => {
    try {
      const caminho = decodeURIComponent(new URL(req.url, "http://x").pathname);
      let arquivo = normalize(join(base, caminho));
      if (arquivo !== base && !arquivo.startsWith(base + sep)) throw new Error("fora da raiz");
      if ((await stat(arquivo)).isDirectory()) arquivo = join(arquivo, "index.html");
      const corpo = await readFile(arquivo);
      const ext = extname(arquivo);
      if (req.method !== "HEAD" && pendurar.includes(ext)) return; // nunca responde
      res.writeHead(200, { "content-type": tipos[ext] || TIPOS[ext] || "application/octet-stream",
        "content-length": corpo.length, "cache-control": "max-age=600" });
      res.end(req.method === "HEAD" ? undefined : corpo);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("não encontrado");
    }
  });
  await new Promise((ok) => servidor.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${servidor.address().port}/`;
  return { url, fechar: () => new Promise((ok) => { servidor.closeAllConnections(); servidor.close(ok); }) };
}
