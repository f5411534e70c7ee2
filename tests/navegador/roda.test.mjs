// No navegador, o Python do livro é a roda do site, instalada pelo loadPackage do Pyodide
// a partir do pyodide-lock.json do site; nenhum pedido sai de 127.0.0.1.
//
// Precisa do site pronto (make book; ou LIVRO_HTML=pasta).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { servir } from "./servidor.mjs";
import { launch, bloquearRede, rolarAte } from "./chromium.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const HTML = resolve(process.env.LIVRO_HTML || join(RAIZ, "_build", "html"));
const ESPERA = 90_000;

let navegador, servidor, pagina, manifesto;

function umaPaginaComWidget(pasta) {
  for (const e of readdirSync(pasta, { withFileTypes: true })) {
    const p = join(pasta, e.name);
    if (e.isDirectory()) {
      if (e.name.startsWith("_")) continue;
      const achada = umaPaginaComWidget(p);
      if (achada) return achada;
    } else if (e.name.endsWith(".html") && readFileSync(p, "utf8").includes('class="livro-widget"')) {
      return relative(HTML, p).split("\\").join("/");
    }
  }
  return null;
}

before(async () => {
  assert.ok(existsSync(join(HTML, "_static", "pyodide", "manifesto.json")),
    `site sem o runtime do Python em ${HTML}: rode \`make book\` (ou defina LIVRO_HTML)`);
  manifesto = JSON.parse(readFileSync(join(HTML, "_static", "pyodide", "manifesto.json"), "utf8"));
  pagina = umaPaginaComWidget(HTML);
  assert.ok(pagina, "nenhuma página com widget no site");
  servidor = await servir(HTML);
  navegador = await launch();
});

after(async () => {
  await navegador?.close();
  await servidor?.fechar();
});

test("o worker instala a roda do livro com loadPackage, do lock do site, e nada vem de fora", async () => {
  const ctx = await navegador.newContext();
  const bloqueados = [];
  try {
    await bloquearRede(ctx, bloqueados);
    const pg = await ctx.newPage();
    await pg.goto(servidor.url + pagina);
    await rolarAte(pg.locator(".livro-widget").first());
    await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null,
      { timeout: ESPERA });
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.estado()), "pronto",
      await pg.locator(".lw-status").first().textContent());
    const { pacote } = await pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.deepEqual(pacote.instalados, [manifesto.roda.pacote]);
    assert.match(pacote.arquivo, /\/site-packages\/.+\.pyc$/, "o Python do livro não veio da roda compilada");
    const pedidos = servidor.enviados.pedidos;
    assert.ok(pedidos.includes(`/_static/${manifesto.lock.url}`), "o worker não buscou o pyodide-lock.json do site");
    assert.ok(pedidos.includes(`/_static/${manifesto.roda.url}`), "o worker não buscou a roda do livro");
    assert.deepEqual(pedidos.filter((p) => p.startsWith("/_static/lab/")), [], "arquivos .py soltos pedidos");
    assert.deepEqual(bloqueados, [], "pedidos para fora de 127.0.0.1");
  } finally {
    await ctx.close();
  }
});
