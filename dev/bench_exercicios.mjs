// Os dois orçamentos dos exercícios conferidos (issue 48), medidos uma vez no site construído:
//   1. conferir uma resposta: ≤ 50 ms (p95) do clique no "Conferir" ao veredito na tela, depois
//      que o runtime dos widgets está pronto;
//   2. o que os exercícios acrescentam ao que a página baixa antes de o leitor tocar num widget:
//      ≤ 15 KB gzip (revisao.js + exercicios.js + exercicios.css + o HTML dos exercícios na página).
// Uso: node dev/bench_exercicios.mjs   (precisa de make book; LIVRO_HTML=pasta troca o site)
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { servir } from "../tests/navegador/servidor.mjs";
import { launch, bloquearRede, rolarAte } from "../tests/navegador/chromium.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..");
const HTML = resolve(process.env.LIVRO_HTML || join(RAIZ, "_build", "html"));
const VEZES = 40;
const gz = (b) => gzipSync(b, { level: 9 }).length;
const kb = (n) => (n / 1024).toFixed(1).replace(".", ",");

// 2. bytes: a página inteira com e sem os contêineres dos exercícios, e os três arquivos deles
let pior = 0;
for (const pag of ["tokens", "proximo_token", "saida", "index"]) {
  const html = readFileSync(join(HTML, "book", `${pag}.html`), "utf8");
  const sem = html.replace(/<div class="livro-widget" data-widget="exercicio:[\s\S]*?<\/details><\/div><\/div>/g, "")
    .replace(/<div class="lx-resumo"[\s\S]*?<\/div>/, "");
  const extra = gz(Buffer.from(html)) - gz(Buffer.from(sem)) + gz(readFileSync(join(HTML, "_static", "exercicios.js")))
    + gz(readFileSync(join(HTML, "_static", "exercicios.css"))) + gz(readFileSync(join(HTML, "_static", "revisao.js")));
  pior = Math.max(pior, extra);
  console.log(`${pag}: os exercícios acrescentam ${kb(extra)} KB gzip antes de tocar num widget`);
}
console.log(`orçamento ≤ 15 KB gzip: pior página ${kb(pior)} KB: ${pior <= 15 * 1024 ? "dentro" : "FORA"}`);

// 1. tempo: o mesmo exercício conferido VEZES vezes, certo e errado alternados
const servidor = await servir(HTML);
const navegador = await launch();
try {
  const ctx = await navegador.newContext();
  await bloquearRede(ctx);
  const pg = await ctx.newPage();
  await pg.goto(servidor.url + "book/proximo_token.html");
  const w = pg.locator('[data-exercicio="proximo_token-3"]');
  await rolarAte(w);
  await pg.waitForFunction(() => globalThis.livroWidgets?.estado() === "pronto", null, { timeout: 120_000 });
  await pg.waitForFunction((el) => el.dataset.ocupado === "0", await w.elementHandle());
  const tempos = await w.evaluate(async (el, vezes) => {
    const campo = el.querySelector('input[name="resposta"]');
    const bt = el.querySelector('button[data-acao="conferir"]');
    const saida = el.querySelector(".lw-saida");
    const out = [];
    for (let i = 0; i < vezes; i++) {
      campo.value = i % 2 ? "0,5" : "abc";
      const t0 = performance.now();
      const feito = new Promise((ok) => {
        const obs = new MutationObserver(() => { if (saida.querySelector("[data-veredito]")) { obs.disconnect(); ok(); } });
        obs.observe(saida, { childList: true, subtree: true });
      });
      bt.click();
      await feito;
      out.push(performance.now() - t0);
      saida.innerHTML = "";
      await new Promise((ok) => setTimeout(ok, 20));
    }
    return out;
  }, VEZES);
  tempos.sort((a, b) => a - b);
  const p95 = tempos[Math.ceil(0.95 * tempos.length) - 1];
  console.log(`conferir (${VEZES} vezes): mediana ${tempos[tempos.length >> 1].toFixed(1).replace(".", ",")} ms, p95 ${p95.toFixed(1).replace(".", ",")} ms`);
  console.log(`orçamento ≤ 50 ms (p95): ${p95 <= 50 ? "dentro" : "FORA"}`);
} finally {
  await navegador.close();
  await servidor.fechar();
}
