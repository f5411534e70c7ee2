// Os cenários de celular do bench dos widgets (dev/bench_widgets.mjs os chama).
//
// - mornoNoCelular: a página b, morna (a página a já guardou o runtime), numa rede de celular
//   pelo CDP: navegação → Python pronto, e quando o worker partiu.
// - abertura: o leitor lê a abertura por LER_ABERTURA ms num link de 1,6 Mbps com 150 ms (o limite
//   de banda e a latência no servidor de teste: o throttling do CDP não alcança um SharedWorker)
//   e então abre o passo 1: da navegação ao widget pronto (o Python respondeu a ele). Com a
//   antecipação (a abertura baixa o runtime em tempo ocioso; partida.js) e sem ela, lado a lado.
import { rolarAte } from "../tests/navegador/chromium.mjs";

export const LER_ABERTURA = 25_000;
export const ORC_ABERTURA = 5_000; // ms da chegada ao passo 1 ao widget pronto
const CELULAR = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

export async function mornoNoCelular({ navegador, servir, bloquearRede, prontoEm, html, a, b, espera }) {
  const srv = await servir(html);
  const ctx = await navegador.newContext(CELULAR);
  await bloquearRede(ctx);
  await prontoEm(navegador, srv, a, { ctx });
  const pg = await ctx.newPage();
  const cdp = await ctx.newCDPSession(pg);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 });
  await pg.goto(srv.url + b, { waitUntil: "commit" });
  await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null,
    { timeout: espera, polling: 50 });
  const m = await pg.evaluate(() => ({ pronto: globalThis.livroWidgets.medidas.pronto,
    inicio: globalThis.livroWidgets.medidas.inicio, partida: globalThis.livroWidgets.medidas.partida,
    dcl: performance.getEntriesByType("navigation")[0].domContentLoadedEventStart }));
  await ctx.close();
  await srv.fechar();
  return { pagina: b, ...m };
}

// Um leitor: abertura → LER_ABERTURA ms → passo 1 (a página `passo1`, rolada até o widget).
// antecipar: false desliga a antecipação (LIVRO_WIDGETS.antecipar). Devolve ms da navegação ao
// pronto, os bytes que a abertura baixou e o estado.
async function umLeitor({ navegador, servir, html, abertura, passo1, antecipar, espera }) {
  const srv = await servir(html, { taxa: 1.6e6 / 8, latencia: 150 });
  const ctx = await navegador.newContext(CELULAR);
  try {
    if (!antecipar) await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { antecipar: false }; });
    const pg = await ctx.newPage();
    await pg.goto(srv.url + abertura);
    await pg.waitForTimeout(LER_ABERTURA);
    const naAbertura = srv.enviados.bytes;
    await pg.goto(srv.url + passo1, { waitUntil: "commit" });
    const w = pg.locator(".livro-widget").first();
    await w.waitFor({ state: "attached", timeout: espera });
    await rolarAte(w);
    // "pronto": o worker já chamou o widget da página uma vez (o Python respondeu a ele)
    await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null,
      { timeout: espera, polling: 50 });
    const m = await pg.evaluate(() => ({ estado: globalThis.livroWidgets.estado(), pronto: globalThis.livroWidgets.medidas.pronto,
      reutilizado: globalThis.livroWidgets.medidas.reutilizado, partida: globalThis.livroWidgets.medidas.partida }));
    return { ...m, naAbertura };
  } finally {
    await ctx.close();
    await srv.fechar();
  }
}

export async function abertura(opcoes) {
  const com = await umLeitor({ ...opcoes, antecipar: true });
  const sem = await umLeitor({ ...opcoes, antecipar: false });
  return { com, sem, dentro: com.estado === "pronto" && com.pronto <= ORC_ABERTURA };
}
