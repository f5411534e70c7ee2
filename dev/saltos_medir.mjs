// Onde cai cada salto do "Nesta página" (issue 55): para cada página e cada entrada, a 1280 e a
// 390 px, do jeito que um leitor salta, mede onde fica o alto do título e lista os que erram.
//   node dev/saltos_medir.mjs [página ...]        (o site do make book; LIVRO_HTML=pasta troca)
// Jeitos de saltar:
//   1280 px  clique   cada entrada clicada com o mouse na página recém-aberta (só as que se veem)
//            desce    um leitor que clica em todas, na ordem (uma entrada que não se vê recebe o
//                     clique no próprio link, e o medidor anota)
//            sobe     o mesmo, de baixo para cima, começando do fim da página
//            url      a página aberta já com o #fragmento
//   390 px   gaveta   o sumário aberto pelo botão do cabeçalho e a entrada tocada nele
//            url      a página aberta já com o #fragmento
//            hash     o #fragmento trocado na barra de endereço
// "Caiu": o critério do teste (tests/navegador/saltos_medida.mjs).
// Cada salto é medido duas vezes: quando a rolagem para, e 1,5 s depois (o que cresce depois
// do salto empurra o título). O teste mede uma vez, depois das fontes e das figuras.
import { launch, bloquearRede } from "../tests/navegador/chromium.mjs";
import { servir, HTML, paginasDoLivro } from "../tests/navegador/servidor.mjs";
import { medir, erro, entradas, entrada } from "../tests/navegador/saltos_medida.mjs";

const DEPOIS = +(process.env.DEPOIS || 1500);
const JEITOS = (process.env.JEITOS || "clique,desce,sobe,url,gaveta,hash").split(",");
const SO = (process.env.SO || "1280,390").split(",");
const paginas = process.argv.slice(2).length ? process.argv.slice(2) : paginasDoLivro();

const ids = entradas;
const link = entrada;
const espera = (ms) => new Promise((ok) => setTimeout(ok, ms));

const falhas = [];
let total = 0;
async function anotar(pg, pagina, largura, jeito, id, extra = "") {
  if (!JEITOS.includes(jeito)) return;
  const alvo = decodeURIComponent(id);
  const m1 = await pg.evaluate(medir, alvo);
  await espera(DEPOIS);
  const m2 = await pg.evaluate(medir, alvo);
  total++;
  const e1 = erro(m1), e2 = erro(m2);
  if (e1 || e2) {
    const quando = e1 ? (e2 ? "" : " (depois acerta)") : " (acertou, e depois saiu)";
    falhas.push({ pagina, id, largura, jeito, e: (e2 || e1) + quando + extra, m1, m2 });
    console.log(`ERRO ${largura} ${jeito.padEnd(6)} ${pagina}#${id}: ${e2 || e1}${quando}${extra} [1º ${m1.top}, depois ${m2.top}]`);
  }
}

// Um clique de leitor: com o mouse, se a entrada se vê; senão, no próprio link (anota).
async function clicar(pg, id) {
  const l = link(pg, id);
  if (await l.isVisible()) { await l.click(); return ""; }
  await l.evaluate((a) => a.click());
  return " [entrada recolhida: clique no link]";
}

// ATRASO_FONTES=ms: as fontes (.woff, .woff2) chegam depois, como da rede com o cache frio
async function atrasarFontes(ctx) {
  const ms = +(process.env.ATRASO_FONTES || 0);
  if (ms) await ctx.route(/\.woff2?$/, async (r) => { await espera(ms); await r.continue(); });
}

const servidor = await servir(HTML, { latencia: +(process.env.LATENCIA || 0) });
const navegador = await launch();
const inicio = Date.now();
const url = (p, h = "") => `${servidor.url}book/${p}.html${h}`;

// 1280 px
if (SO.includes("1280")) {
  const ctx = await navegador.newContext({ viewport: { width: 1280, height: +(process.env.ALTURA || 800) } });
  await bloquearRede(ctx);
  await atrasarFontes(ctx);
  for (const p of paginas) {
    const pg = await ctx.newPage();
    await pg.goto(url(p), { waitUntil: "load" });
    const lista = await ids(pg);
    for (const id of lista) {
      await pg.goto(url(p), { waitUntil: "load" });
      if (!(await link(pg, id).isVisible())) continue;
      await link(pg, id).click();
      await anotar(pg, p, 1280, "clique", id);
    }
    await pg.goto(url(p), { waitUntil: "load" });
    for (const id of lista) await anotar(pg, p, 1280, "desce", id, await clicar(pg, id));
    await pg.goto(url(p), { waitUntil: "load" });
    await pg.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
    await espera(300);
    for (const id of [...lista].reverse()) await anotar(pg, p, 1280, "sobe", id, await clicar(pg, id));
    for (const id of lista) {
      await pg.goto("about:blank");
      await pg.goto(url(p, `#${id}`), { waitUntil: "load" });
      await anotar(pg, p, 1280, "url", id);
    }
    await pg.close();
  }
  await ctx.close();
}

// 390 px
if (SO.includes("390")) {
  const ctx = await navegador.newContext({ viewport: { width: 390, height: +(process.env.ALTURA390 || 844) }, deviceScaleFactor: +(process.env.ESCALA || 1), isMobile: true, hasTouch: true });
  await bloquearRede(ctx);
  await atrasarFontes(ctx);
  for (const p of paginas) {
    const pg = await ctx.newPage();
    await pg.goto(url(p), { waitUntil: "load" });
    const lista = await ids(pg);
    for (const id of lista) {
      await pg.goto(url(p), { waitUntil: "load" });
      const botao = pg.locator("button.secondary-toggle").first();
      if (!(await botao.isVisible())) { console.log(`(390: ${p} sem o botão do sumário)`); break; }
      await botao.tap();
      await espera(400);
      let extra = "";
      const l = link(pg, id);
      if (await l.isVisible()) await l.tap();
      else { await l.evaluate((a) => a.click()); extra = " [entrada escondida na gaveta]"; }
      await anotar(pg, p, 390, "gaveta", id, extra);
    }
    for (const id of lista) {
      await pg.goto("about:blank");
      await pg.goto(url(p, `#${id}`), { waitUntil: "load" });
      await anotar(pg, p, 390, "url", id);
    }
    await pg.goto(url(p), { waitUntil: "load" });
    for (const id of lista) {
      await pg.evaluate((h) => { location.hash = h; }, id);
      await anotar(pg, p, 390, "hash", id);
    }
    await pg.close();
  }
  await ctx.close();
}

await navegador.close();
await servidor.fechar();
const unicos = new Set(falhas.map((f) => `${f.pagina}#${f.id}`));
console.log(`\n${total} saltos medidos em ${Math.round((Date.now() - inicio) / 1000)} s; ` +
  `${falhas.length} erram (${unicos.size} entradas diferentes):`);
for (const u of unicos) {
  const fs = falhas.filter((f) => `${f.pagina}#${f.id}` === u);
  console.log(`  ${u}: ${fs.map((f) => `${f.largura}/${f.jeito}`).join(", ")}`);
}
