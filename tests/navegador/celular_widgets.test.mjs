// Tabelas de widget no celular depois que o Python as redesenha (issue 49): a 390 px, as
// tabelas dos widgets do passo 3 (qkv) e do passo 7 (proximo) cabem na caixa, e toda caixa que
// ainda rolar de lado é alcançável pelo teclado (tabindex, o que o axe pede:
// scrollable-region-focusable). Carrega o Pyodide: precisa do site pronto (make book).
import { test } from "node:test";
import assert from "node:assert/strict";
import { abrirSite } from "./servidor.mjs";
import { bloquearRede, rolarAte } from "./chromium.mjs";

const ESPERA = 90_000;

let navegador, servidor;
abrirSite((s) => ({ navegador, servidor } = s));

// No navegador: as tabelas da saída do widget que passam da caixa e as caixas que rolam sem tabindex.
function medir(el) {
  const problemas = [];
  for (const t of el.querySelectorAll(".lw-saida table")) {
    if (t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > el.getBoundingClientRect().right + 1) {
      const cab = [...t.querySelectorAll("thead th")].map((th) => th.textContent.trim()).join(" | ").slice(0, 60);
      problemas.push(`tabela «${cab}» passa da caixa (${t.scrollWidth} > ${t.clientWidth} px)`);
    }
  }
  for (const x of el.querySelectorAll("*")) {
    const ox = getComputedStyle(x).overflowX;
    if ((ox === "auto" || ox === "scroll") && x.scrollWidth > x.clientWidth + 1 && x.tabIndex < 0) {
      problemas.push(`<${x.tagName.toLowerCase()}> rola de lado sem tabindex`);
    }
  }
  return problemas;
}

for (const [pagina, nome, acao] of [["qkv", "qkv", null], ["proximo_token", "proximo", "anexar"]]) {
  test(`390 px: a tabela do widget ${nome} cabe depois que o Python a redesenha`, async () => {
    const ctx = await navegador.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await bloquearRede(ctx);
    const pg = await ctx.newPage();
    await pg.goto(`${servidor.url}book/${pagina}.html`, { waitUntil: "load" });
    const w = pg.locator(`.livro-widget[data-widget="${nome}"]`).first();
    await rolarAte(w);
    await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null, { timeout: ESPERA });
    assert.equal(await w.locator(".lw-status").getAttribute("data-tipo"), "pronto");
    if (acao) await w.locator(`[data-acao=${acao}]`).click();
    else await w.locator("input").first().fill("2");
    await pg.waitForFunction((el) => el.dataset.ocupado === "0", await w.elementHandle(), { timeout: 10_000 });
    await pg.waitForTimeout(400); // o tema mede o widget 250 ms depois da mudança
    assert.deepEqual(await w.evaluate(medir), []);
    await ctx.close();
  });
}
