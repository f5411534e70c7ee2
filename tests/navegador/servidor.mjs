// Um servidor estático mínimo para o site construído, só em 127.0.0.1 (testes e benchmark).
// Tipos certos para .wasm e .mjs; `tipos` troca um tipo de propósito (o teste do tipo errado).
import { after, before } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "./chromium.mjs";

export { launch };

// O site que os testes abrem: o do make book, ou LIVRO_HTML=pasta.
export const HTML = resolve(process.env.LIVRO_HTML || join(dirname(fileURLToPath(import.meta.url)), "..", "..", "_build", "html"));

// As páginas do livro no site construído (book/x.html -> "x"), menos a tabela de números dos
// instrutores (`numeros`, centenas de linhas de tabela): uma página nova entra sozinha nos testes.
export function paginasDoLivro() {
  if (!existsSync(join(HTML, "book"))) return [];     // sem site: o before de abrirSite explica
  return readdirSync(join(HTML, "book")).filter((f) => f.endsWith(".html")).map((f) => f.slice(0, -5))
    .filter((n) => n !== "numeros").sort();
}

// O site servido em 127.0.0.1 e um Chromium, abertos antes dos testes de um arquivo e fechados
// depois. `pronto(s)` recebe { servidor, navegador } e prepara o que o arquivo precisar; o objeto
// devolvido é o mesmo `s`. `arquivo`: o que tem de existir no site (senão, "rode make book").
export function abrirSite(pronto = () => {}, { arquivo = join("book", "index.html") } = {}) {
  const s = {};
  before(async () => {
    assert.ok(existsSync(join(HTML, arquivo)), `site ausente em ${HTML}: rode \`make book\``);
    s.servidor = await servir(HTML);
    s.navegador = await launch();
    await pronto(s);
  });
  after(async () => {
    await s.navegador?.close();
    await s.servidor?.fechar();
  });
  return s;
}

const TIPOS = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript",
  ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm", ".zip": "application/zip",
  ".gz": "application/gzip", ".py": "text/x-python; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png",
  ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8", ".map": "application/json", ".inv": "application/octet-stream",
};

const dorme = (ms) => new Promise((ok) => setTimeout(ok, ms));

// tipos: troca o tipo de uma extensão; pendurar: extensões (".wasm") ou expressões regulares
// do caminho cujo GET manda os cabeçalhos e depois nunca mais nada (a rede que para);
// taxa: bytes por segundo divididos entre todas as conexões (um celular numa rede lenta);
// reescrever: caminho -> função (corpo) => corpo novo, lida a cada pedido (um teste pode trocar
// um arquivo no meio, como um site publicado de novo); latencia: ms antes de cada resposta (o
// tempo de ida e volta de um celular). `fora` (mutável): true responde como um servidor que caiu
// (a conexão fecha sem resposta), false volta ao normal.
// Cache de 10 min, como no GitHub Pages. `contar` soma os bytes de corpo enviados.
export async function servir(raiz, { tipos = {}, pendurar = [], taxa = 0, reescrever = {}, latencia = 0 } = {}) {
  const base = resolve(raiz);
  // bytes: total; pedidos: caminhos; porCaminho: bytes por caminho; lista: um registro por pedido.
  const enviados = { bytes: 0, pedidos: [], porCaminho: {}, lista: [] };
  let livreEm = 0; // quando o "fio" compartilhado fica livre de novo (ms, relógio do processo)
  const pendura = (caminho, ext) => pendurar.some((p) => (p instanceof RegExp ? p.test(caminho) : p === ext));
  const abertos = new Set();
  const estado = { fora: false };
  const servidor = createServer(async (req, res) => {
    if (estado.fora) { req.socket.destroy(); return; }
    if (latencia) await dorme(latencia);
    try {
      const caminho = decodeURIComponent(new URL(req.url, "http://x").pathname);
      let arquivo = normalize(join(base, caminho));
      if (arquivo !== base && !arquivo.startsWith(base + sep)) throw new Error("fora da raiz");
      if ((await stat(arquivo)).isDirectory()) arquivo = join(arquivo, "index.html");
      let corpo = await readFile(arquivo);
      if (reescrever[caminho]) corpo = Buffer.from(reescrever[caminho](corpo));
      const ext = extname(arquivo);
      res.writeHead(200, { "content-type": tipos[ext] || TIPOS[ext] || "application/octet-stream",
        "content-length": corpo.length, "cache-control": "max-age=600" });
      if (req.method === "HEAD") return res.end();
      enviados.pedidos.push(caminho);
      if (pendura(caminho, ext)) { res.flushHeaders(); return; } // cabeçalhos e depois silêncio
      const registro = { caminho, inicio: performance.now(), bytes: 0 };
      enviados.lista.push(registro);
      const conta = (n) => {
        registro.bytes += n;
        enviados.bytes += n;
        enviados.porCaminho[caminho] = (enviados.porCaminho[caminho] || 0) + n;
      };
      if (!taxa) { conta(corpo.length); return res.end(corpo); }
      const PEDACO = 16 * 1024;
      for (let i = 0; i < corpo.length && !res.destroyed; i += PEDACO) {
        if (estado.fora) { res.destroy(); break; } // o servidor caiu no meio do arquivo
        const n = Math.min(PEDACO, corpo.length - i);
        const agora = performance.now();
        const inicio = Math.max(agora, livreEm);
        livreEm = inicio + (n / taxa) * 1000;
        await dorme(livreEm - agora);
        if (res.destroyed) break;
        res.write(corpo.subarray(i, i + n));
        conta(n);
      }
      res.end();
    } catch {
      if (!res.headersSent) {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("não encontrado");
      }
    }
  });
  servidor.on("connection", (s) => { abertos.add(s); s.on("close", () => abertos.delete(s)); });
  await new Promise((ok) => servidor.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${servidor.address().port}/`;
  return {
    url, enviados, estado,
    // derruba o servidor (todas as conexões abertas caem; as novas fecham sem resposta) ou o levanta
    cair: () => { estado.fora = true; for (const s of abertos) s.destroy(); },
    voltar: () => { estado.fora = false; },
    fechar: () => new Promise((ok) => {
      for (const s of abertos) s.destroy();
      servidor.closeAllConnections();
      servidor.close(ok);
    }),
  };
}
