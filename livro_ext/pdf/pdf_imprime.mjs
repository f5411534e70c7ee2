// Imprime a página única do livro (livro_ext/pdf/pdf.py a monta) em A4, no Chromium do Debian.
//   node livro_ext/pdf/pdf_imprime.mjs _build/singlehtml/livro_pdf.html _build/html/livro.pdf _build/pdf/paginas.json
// Sem rede: os arquivos são servidos do disco numa origem falsa (http://livro.pdf/); todo o
// resto é recusado. Espera o MathJax terminar, encolhe o que é mais largo que a coluna,
// troca os hífens opcionais pelos que quebraram a linha, imprime, lê com o pdftotext a página de cada capítulo (um marcador invisível), escreve as
// páginas no sumário e imprime de novo, sem os marcadores.
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { readFile, writeFile, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import os from "node:os";

const [html, saida, paginasJson] = process.argv.slice(2);
if (!html || !saida || !paginasJson) {
  console.error("uso: node pdf_imprime.mjs pagina.html saida.pdf paginas.json");
  process.exit(2);
}
const RAIZ = path.dirname(path.resolve(html));
const ORIGEM = "http://livro.pdf/";
const TIPOS = { ".html": "text/html", ".css": "text/css", ".js": "text/javascript", ".woff": "font/woff",
  ".woff2": "font/woff2", ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".ttf": "font/ttf" };
// A4 com margens de 16 mm dos lados: a coluna tem 178 mm (a 96 px por polegada)
const MARGEM = { top: "16mm", bottom: "18mm", left: "16mm", right: "16mm" };
const COLUNA_PX = Math.floor((210 - 32) / 25.4 * 96);

const navegador = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--font-render-hinting=none",
    // sem o menu da barra de endereço (uma página WebUI que o Chromium 156 abre a cada página nova)
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup"],
});
let falhou = 0;
try {
  const contexto = await navegador.newContext({ viewport: { width: COLUNA_PX, height: 1000 } });
  const faltando = [];
  await contexto.route("**/*", async (rota) => {
    const url = new URL(rota.request().url());
    if (url.origin + "/" !== ORIGEM) return rota.abort();
    const arquivo = path.join(RAIZ, decodeURIComponent(url.pathname));
    if (!arquivo.startsWith(RAIZ)) return rota.abort();
    try {
      const corpo = await readFile(arquivo);
      return rota.fulfill({ body: corpo, contentType: TIPOS[path.extname(arquivo)] || "application/octet-stream" });
    } catch {
      faltando.push(url.pathname);
      return rota.fulfill({ status: 404, body: "" });
    }
  });
  const pagina = await contexto.newPage();
  const erros = [];
  pagina.on("pageerror", (e) => erros.push(String(e)));
  await pagina.emulateMedia({ media: "print", colorScheme: "light" });
  await pagina.goto(ORIGEM + path.basename(html), { waitUntil: "load", timeout: 120_000 });
  // MathJax (se a página o carrega, com defer): espera a tipografia inteira
  const comMathJax = await pagina.evaluate(() => !!document.querySelector("script[src*='mathjax']"));
  if (comMathJax) {
    await pagina.waitForFunction(() => window.MathJax && window.MathJax.startup && window.MathJax.startup.promise,
      null, { timeout: 60_000 });
  }
  const formulas = await pagina.evaluate(async () => {
    if (window.MathJax && window.MathJax.startup) await window.MathJax.startup.promise;
    await document.fonts.ready;
    return document.querySelectorAll("mjx-container").length;
  });
  if (faltando.length) console.error("pdf: arquivos que a página pediu e não existem:", faltando.slice(0, 10));
  if (erros.length) console.error("pdf: erros de JavaScript na página:", erros.slice(0, 5));
  // O corpo com a largura exata da coluna, na tela e no papel (a janela tem px inteiros; a coluna
  // de 178 mm, não): as linhas diagramadas aqui são as mesmas da impressão.
  await pagina.evaluate((largura) => { document.body.style.width = `${largura}px`; }, COLUNA_PX);
  // O que é mais largo que a coluna encolhe (zoom) até caber: equações, tabelas, saídas, figuras.
  const encolhidos = await pagina.evaluate(() => {
    const lista = [];
    const sel = "mjx-container[display='true'], table, .cell_output pre, div.highlight pre, figure, svg, [data-widget], img";
    for (const el of document.querySelectorAll(sel)) {
      const pai = el.parentElement;
      if (!pai) continue;
      const cabe = pai.clientWidth - 1;
      const largura = el.scrollWidth;
      if (cabe > 50 && largura > cabe + 2) {
        const z = cabe / largura;
        el.style.zoom = String(z);
        lista.push({ tag: el.tagName.toLowerCase(), zoom: Math.round(z * 100) / 100 });
      }
    }
    return lista;
  });
  // Uma resposta (ou nota) que cabe em meia página vai inteira para a página seguinte, em vez de
  // deixar o título ("Resposta") no pé desta: o break-after do título o Chromium não segura.
  const juntas = await pagina.evaluate((meia) => {
    let n = 0;
    for (const el of document.querySelectorAll(".pdf-details, .admonition")) {
      if (el.getBoundingClientRect().height <= meia) { el.style.breakInside = "avoid"; n++; }
    }
    return n;
  }, Math.round(COLUNA_PX * 0.7));
  // Hífens opcionais: o pyphen pôs um U+00AD em cada ponto de hifenização, e o Chromium escreve
  // todos na camada de texto do PDF (buscar "probabilidades" achava 2 de 23). Com a página já
  // diagramada (a mesma largura da impressão: o corpo tem a largura da coluna), cada um que
  // não quebrou a linha sai, e o que quebrou vira um hífen de verdade (U+2010, que também deixa
  // quebrar depois dele): a camada de texto fica sem nenhum U+00AD e as linhas, as mesmas.
  const hifens = await pagina.evaluate(() => {
    const SHY = "\u00ad";
    const andar = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const nos = [];
    while (andar.nextNode()) if (andar.currentNode.data.includes(SHY)) nos.push(andar.currentNode);
    // um hífen opcional que quebrou a linha tem duas caixas (o fim da linha e o hífen
    // desenhado); o que não quebrou, uma (sem largura)
    const r = document.createRange();
    const quebras = nos.map((no) => {
      const usados = new Set();
      for (let i = no.data.indexOf(SHY); i >= 0; i = no.data.indexOf(SHY, i + 1)) {
        r.setStart(no, i); r.setEnd(no, i + 1);
        if (r.getClientRects().length >= 2) usados.add(i);
      }
      return usados;
    });
    let n = 0;
    nos.forEach((no, k) => {
      let novo = "";
      for (let i = 0; i < no.data.length; i++) {
        if (no.data[i] !== SHY) novo += no.data[i];
        else if (quebras[k].has(i)) { novo += "\u2010"; n++; }
      }
      no.data = novo;
    });
    return n;
  });
  const opcoes = {
    format: "A4", margin: MARGEM, printBackground: true, outline: true, tagged: true,
    displayHeaderFooter: true,
    headerTemplate: "<span></span>",
    footerTemplate: '<div style="width:100%;text-align:center;font-size:8pt;font-family:\'DejaVu Serif\',serif;color:#555">'
      + '<span class="pageNumber"></span></div>',
  };
  const tmp = path.join(os.tmpdir(), `livro-pdf-${process.pid}`);
  await mkdir(tmp, { recursive: true });
  const primeira = path.join(tmp, "passo1.pdf");
  await pagina.pdf({ ...opcoes, path: primeira });

  // A página de cada capítulo: o marcador @@PDFCAPnn@@ (1 px, transparente) está nela.
  const texto = execFileSync("pdftotext", ["-enc", "UTF-8", primeira, "-"], { maxBuffer: 1 << 28 }).toString("utf8");
  const folhas = texto.split("\f");
  if (folhas.at(-1).trim() === "") folhas.pop();
  const inicio = {};
  folhas.forEach((f, i) => {
    for (const m of f.matchAll(/@@PDFCAP(\d\d)@@/g)) inicio[Number(m[1])] ??= i + 1;
  });
  const esperados = await pagina.evaluate(() => document.querySelectorAll(".pdf-marca").length);
  if (Object.keys(inicio).length !== esperados) {
    throw new Error(`achei ${Object.keys(inicio).length} de ${esperados} capítulos no PDF da primeira impressão`);
  }
  await pagina.evaluate((inicio) => {
    for (const el of document.querySelectorAll(".pdf-sumario-pag")) el.textContent = String(inicio[el.dataset.cap]);
    for (const el of document.querySelectorAll(".pdf-marca")) el.remove();
  }, inicio);
  await pagina.pdf({ ...opcoes, path: saida });
  const final = execFileSync("pdftotext", ["-enc", "UTF-8", saida, "-"], { maxBuffer: 1 << 28 }).toString("utf8");
  const paginas = final.split("\f").filter((f, i, a) => i < a.length - 1 || f.trim() !== "").length;
  if (paginas !== folhas.length) throw new Error(`a segunda impressão tem ${paginas} páginas; a primeira, ${folhas.length}`);
  await mkdir(path.dirname(paginasJson), { recursive: true });
  await writeFile(paginasJson, JSON.stringify({ paginas, inicio, formulas, encolhidos, hifens, juntas }, null, 1));
  await rm(tmp, { recursive: true, force: true });
  console.log(`pdf: ${paginas} páginas, ${formulas} fórmulas, ${encolhidos.length} elementos encolhidos para caber, `
    + `${hifens} palavras hifenizadas`);
} catch (e) {
  console.error("pdf:", e.message || e);
  falhou = 1;
} finally {
  await navegador.close();
}
process.exit(falhou);
