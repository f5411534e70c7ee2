// Onde cai um salto do "Nesta página": a medida e o critério, os mesmos no teste
// (saltos.test.mjs) e no medidor de investigação (dev/saltos_medir.mjs).
// "Caiu": o alto do título logo abaixo do cabeçalho fixo, no lugar que o tema reserva
// (scroll-padding-top), com FOLGA px; ou, com a página rolada até o fim (a última seção, curta,
// não sobe até lá), o título visível abaixo do cabeçalho.

const FOLGA = 6;

// No navegador (page.evaluate): espera a rolagem parar, as fontes e as figuras chegarem, e mede
// o título do alvo `id`, o cabeçalho que fica no alto da tela e o lugar reservado.
export async function medir(id) {
  const quadro = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 30)));
  await document.fonts.ready;
  // (uma figura com loading="lazy" longe da tela não carrega: 3 s no máximo)
  const figuras = [...document.images].filter((i) => !i.complete)
    .map((i) => new Promise((ok) => { i.addEventListener("load", ok); i.addEventListener("error", ok); }));
  await Promise.race([Promise.all(figuras), new Promise((ok) => setTimeout(ok, 3000))]);
  let y = -1;
  for (let i = 0; i < 60 && y !== scrollY; i++) { y = scrollY; await quadro(); await quadro(); }
  const alvo = document.getElementById(id);
  const titulo = alvo.matches("section") ? alvo.querySelector("h1, h2, h3, h4") || alvo : alvo;
  const top = titulo.getBoundingClientRect().top;
  let cabeca = 0;
  for (const el of document.querySelectorAll(".bd-header, .bd-header-article")) {
    const r = el.getBoundingClientRect();
    const pos = getComputedStyle(el).position;
    if ((pos === "sticky" || pos === "fixed") && r.top <= 0.5 && r.height > 0) cabeca = Math.max(cabeca, r.bottom);
  }
  const reserva = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
  const fim = scrollY >= document.documentElement.scrollHeight - innerHeight - 2;
  return {
    top: Math.round(top), cabeca: Math.round(cabeca), reserva: Math.round(reserva), fim,
    visivel: top >= cabeca - 1 && top < innerHeight - 40,
    gaveta: !!document.querySelector("dialog[open]"), foco: document.activeElement === titulo,
  };
}

// Errou? O motivo, ou null.
export function erro(m) {
  if (m.gaveta) return "a gaveta do sumário ficou aberta sobre o texto";
  if (m.fim && m.visivel) return null;
  if (m.top < m.cabeca - 1) return `sob o cabeçalho (${m.top} px; o cabeçalho vai até ${m.cabeca})`;
  const d = m.top - m.reserva;
  if (Math.abs(d) > FOLGA) return `${d > 0 ? "abaixo" : "acima"} do lugar: ${m.top} px (o lugar é ${m.reserva})`;
  return null;
}

// As entradas do "Nesta página" (os ids, sem o #) e o link de uma delas.
export const entradas = (pg) => pg.$$eval(".bd-sidebar-secondary nav a[href^='#']",
  (as) => as.map((a) => a.getAttribute("href").slice(1)));
export const entrada = (pg, id) => pg.locator(`.bd-sidebar-secondary nav a[href='#${id}']`).first();
