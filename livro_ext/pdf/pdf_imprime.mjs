// Imprime a página única do livro (livro_ext/pdf/pdf.py a monta) em A4, no Chromium do Debian, sem rede
// (o que faz a cada passo: CONTRIBUINDO.md, `make pdf`):
//   node livro_ext/pdf/pdf_imprime.mjs _build/singlehtml/livro_pdf.html _build/html/livro.pdf _build/pdf/paginas.json
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { writeFile, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import os from "node:os";

const [html, saida, paginasJson] = process.argv.slice(2);
if (!html || !saida || !paginasJson) {
  console.error("uso: node pdf_imprime.mjs pagina.html saida.pdf paginas.json");
  process.exit(2);
}
const RAIZ = path.dirname(path.resolve(html));
const ORIGEM = "http://livro.pdf/"; // os arquivos vêm do disco; todo o resto é recusado
// A4 com margens de 16 mm dos lados: a coluna tem 178 mm (a 96 px por polegada)
const MARGEM = { top: "16mm", bottom: "18mm", left: "16mm", right: "16mm" };
const COLUNA_PX = Math.floor((210 - 32) / 25.4 * 96);
const folhasDo = (pdf) => execFileSync("pdftotext", ["-enc", "UTF-8", pdf, "-"], { maxBuffer: 1 << 28 })
  .toString("utf8").split("\f").filter((f, i, todas) => i < todas.length - 1 || f.trim() !== "");

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
    const arquivo = path.join(RAIZ, decodeURIComponent(url.pathname));
    if (url.origin + "/" !== ORIGEM || !arquivo.startsWith(RAIZ)) return rota.abort();
    try {
      return await rota.fulfill({ path: arquivo }); // o tipo sai da extensão
    } catch {
      faltando.push(url.pathname);
      return rota.fulfill({ status: 404, body: "" });
    }
  });
  const pagina = await contexto.newPage(); // sem nenhum script: pdf.py os tira
  await pagina.emulateMedia({ media: "print", colorScheme: "light" });
  await pagina.goto(ORIGEM + path.basename(html), { waitUntil: "load", timeout: 120_000 });
  const formulas = await pagina.evaluate(async () => { // desenhadas no build (livro_ext/tema/matematica.py)
    await document.fonts.ready;
    return document.querySelectorAll("mjx-container").length;
  });
  if (faltando.length) console.error("pdf: arquivos que a página pediu e não existem:", faltando.slice(0, 10));
  // O corpo com a largura exata da coluna (a janela tem px inteiros): as linhas diagramadas aqui são as do papel.
  const encolhidos = await pagina.evaluate((largura) => {
    document.body.style.width = `${largura}px`;
    const lista = [];
    const sel = "mjx-container[display='true'], table, .cell_output pre, div.highlight pre, figure, svg, "
      + "[data-widget], img";
    for (const el of document.querySelectorAll(sel)) {
      const cabe = (el.parentElement?.clientWidth ?? 0) - 1;
      const largura = el.scrollWidth;
      if (cabe > 50 && largura > cabe + 2) {
        el.style.zoom = String(cabe / largura);
        lista.push({ tag: el.tagName.toLowerCase(), zoom: Math.round(cabe / largura * 100) / 100 });
      }
    }
    return lista;
  }, COLUNA_PX);
  // o break-after do título ("Resposta") o Chromium não segura: a resposta curta não se parte
  const juntas = await pagina.evaluate((meia) => {
    const curtas = [...document.querySelectorAll(".pdf-details, .admonition")]
      .filter((el) => el.getBoundingClientRect().height <= meia);
    for (const el of curtas) el.style.breakInside = "avoid";
    return curtas.length;
  }, Math.round(COLUNA_PX * 0.7));
  // Um hífen opcional que quebrou a linha tem duas caixas (o fim da linha e o hífen); mede tudo antes de mudar.
  const hifens = await pagina.evaluate(() => {
    const andar = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const r = document.createRange();
    const quebras = new Map();
    while (andar.nextNode()) {
      const no = andar.currentNode;
      for (let i = no.data.indexOf("\u00ad"); i >= 0; i = no.data.indexOf("\u00ad", i + 1)) {
        r.setStart(no, i);
        r.setEnd(no, i + 1);
        if (!quebras.has(no)) quebras.set(no, new Set());
        if (r.getClientRects().length >= 2) quebras.get(no).add(i);
      }
    }
    for (const [no, usados] of quebras) no.data = no.data.replace(/\u00ad/g, (_, i) => (usados.has(i) ? "\u2010" : ""));
    return [...quebras.values()].reduce((n, usados) => n + usados.size, 0);
  });
  const opcoes = { format: "A4", margin: MARGEM, printBackground: true, outline: true, tagged: true,
    displayHeaderFooter: true, headerTemplate: "<span></span>",
    footerTemplate: '<div style="width:100%;text-align:center;font-size:8pt;'
      + 'font-family:\'DejaVu Serif\',serif;color:#555"><span class="pageNumber"></span></div>' };
  const primeira = path.join(os.tmpdir(), `livro-pdf-${process.pid}.pdf`);
  await pagina.pdf({ ...opcoes, path: primeira });
  // A página de cada capítulo: o marcador @@PDFCAPnn@@ (1 px, transparente) está nela.
  const folhas = folhasDo(primeira);
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
  const paginas = folhasDo(saida).length;
  if (paginas !== folhas.length) {
    throw new Error(`a segunda impressão tem ${paginas} páginas; a primeira, ${folhas.length}`);
  }
  await mkdir(path.dirname(paginasJson), { recursive: true });
  await writeFile(paginasJson, JSON.stringify({ paginas, inicio, formulas, encolhidos, hifens, juntas }, null, 1));
  await rm(primeira, { force: true });
  console.log(`pdf: ${paginas} páginas, ${formulas} fórmulas, ${encolhidos.length} elementos encolhidos para caber, `
    + `${hifens} palavras hifenizadas`);
} catch (e) {
  console.error("pdf:", e.message || e);
  falhou = 1;
} finally {
  await navegador.close();
}
process.exit(falhou);
