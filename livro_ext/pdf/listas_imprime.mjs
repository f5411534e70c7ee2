// Imprime as listas de `make listas` em A4 no Chromium do Debian, sem rede, com o rodapé
// "título · página N de M" (livro_ext/pdf/listas.py chama; as margens e a fonte são as do livro):
//   node livro_ext/pdf/listas_imprime.mjs pares.json      ([[arquivo.html, arquivo.pdf], …])
import { chromium } from "playwright-core";
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";

const pares = JSON.parse(await readFile(process.argv[2], "utf8"));
const navegador = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--font-render-hinting=none"],
});
try {
  const contexto = await navegador.newContext();
  // só os arquivos da própria lista (file://); nada da rede
  await contexto.route("**/*", (rota) => (rota.request().url().startsWith("file:") ? rota.continue() : rota.abort()));
  const pagina = await contexto.newPage();
  await pagina.emulateMedia({ media: "print", colorScheme: "light" });
  for (const [html, pdf] of pares) {
    await pagina.goto(pathToFileURL(html).href, { waitUntil: "load" });
    await pagina.evaluate(() => document.fonts.ready);
    await pagina.pdf({ path: pdf, format: "A4", printBackground: true, tagged: true, preferCSSPageSize: true,
      displayHeaderFooter: true, headerTemplate: "<span></span>",
      footerTemplate: '<div style="width:100%;text-align:center;font-size:8pt;font-family:\'DejaVu Sans\',sans-serif;'
        + 'color:#555"><span class="title"></span> · página <span class="pageNumber"></span> de '
        + '<span class="totalPages"></span></div>' });
  }
} finally {
  await navegador.close();
}
