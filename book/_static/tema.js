// Ajustes do livro ao tema (book/_ext/tema.py carrega este arquivo com defer).
//
// 1. Busca (Sphinx 7.4, searchtools.js): os trechos dos resultados saem sem o LaTeX cru
//    das fórmulas, e acham a palavra mesmo digitada sem acento ("atencao" → "atenção").
//    O botão de copiar código em português.
// 2. Uma página sem sumário lateral não quebra o script do sphinx-book-theme.
// 3. Rolagem de lado: equações, tabelas e figuras mais largas que a coluna rolam dentro
//    de si (livro.css). Quem rola precisa ser alcançável pelo teclado (tabindex="0"),
//    como o tema já faz com tabelas e código.
(() => {
  "use strict";

  // Troca cada letra acentuada pela letra sem acento, sem mudar o comprimento do texto.
  const semAcento = (s) => s.replace(/[^\u0000-\u007f]/g, (c) => c.normalize("NFD")[0]);

  // --- 1. Busca --------------------------------------------------------------------------
  if (typeof Search !== "undefined") {
    const htmlToText = Search.htmlToText;
    Search.htmlToText = (html, ancora) => {
      const doc = new DOMParser().parseFromString(html, "text/html");
      // A fórmula no HTML é o TeX (o MathJax só a desenha no navegador): no trecho, "…".
      doc.querySelectorAll(".math, mjx-container, .MathJax, script[type^='math/']").forEach((el) => {
        el.replaceWith(doc.createTextNode(el.classList.contains("math") && el.tagName === "DIV" ? " … " : "…"));
      });
      return htmlToText(doc.documentElement.outerHTML, ancora);
    };
    const resumo = Search.makeSearchSummary;
    Search.makeSearchSummary = (html, palavras, ancora) => {
      const texto = Search.htmlToText(html, ancora);
      if (texto === "") return null;
      const base = semAcento(texto.toLowerCase());
      const pos = [...palavras].map((k) => base.indexOf(semAcento(k.toLowerCase()))).filter((i) => i > -1).slice(-1)[0];
      if (pos === undefined) return resumo(html, palavras, ancora);
      const inicio = Math.max(pos - 120, 0);
      const p = document.createElement("p");
      p.classList.add("context");
      p.textContent = (inicio ? "..." : "") + texto.substr(inicio, 240).trim() + (inicio + 240 < texto.length ? "..." : "");
      return p;
    };
  }

  // --- 1b. Botão de copiar código (sphinx-copybutton 0.5 não tem português; cai no inglês).
  // O script dele já rodou (sem defer) e deixou `messages`, `locale`, `iconCopy` e
  // `iconCheck` no escopo global; os botões só nascem no DOMContentLoaded, depois daqui.
  if (typeof messages === "object" && messages?.en?.copy_to_clipboard && typeof locale === "string") {
    messages["pt-BR"] = {
      copy: "Copiar", copy_to_clipboard: "Copiar o código", copy_success: "Copiado!",
      copy_failure: "Não foi possível copiar",
    };
    locale = "pt-BR";  // eslint-disable-line no-global-assign
    const titulo = (svg, t) => svg.replace(/<title>[^<]*<\/title>/, `<title>${t}</title>`);
    if (typeof iconCopy === "string") iconCopy = titulo(iconCopy, messages["pt-BR"].copy_to_clipboard);
    if (typeof iconCheck === "string") iconCheck = titulo(iconCheck, messages["pt-BR"].copy_success);
  }

  // --- 2. O sphinx-book-theme 1.3 supõe o sumário lateral (div.bd-sidebar-secondary) em toda
  // página com conteúdo de margem ou largura total (.full-width, .margin...); numa página
  // sem sumário ele quebra com um erro no console. Um marcador vazio e escondido basta.
  if (!document.querySelector("div.bd-sidebar-secondary")) {
    const marcador = document.createElement("div");
    marcador.className = "bd-sidebar-secondary";
    marcador.hidden = true;
    document.body.appendChild(marcador);
  }

  // --- 3. Contêineres que rolam de lado --------------------------------------------------
  // Todo elemento do texto que rola de lado (overflow-x auto/scroll) e tem o que rolar ganha
  // a classe rola-de-lado (a borda esmaecida do livro.css) e, se preciso, tabindex="0".
  function marcar() {
    const artigo = document.querySelector(".bd-article");
    if (!artigo) return;
    for (const el of artigo.querySelectorAll("*")) {
      const tag = el.tagName;
      if (tag.startsWith("MJX-") && !(tag === "MJX-CONTAINER" && el.getAttribute("display") === "true")) continue;
      if (el instanceof SVGElement) continue;
      const ox = getComputedStyle(el).overflowX;
      const rola = (ox === "auto" || ox === "scroll") && el.scrollWidth > el.clientWidth + 1;
      el.classList.toggle("rola-de-lado", rola);
      if (rola && !el.hasAttribute("tabindex")) {
        el.tabIndex = 0;
        el.dataset.livroTab = "1";
      } else if (!rola && el.dataset.livroTab) {
        el.removeAttribute("tabindex");
        delete el.dataset.livroTab;
      }
    }
  }
  let espera = null;
  const depois = () => { clearTimeout(espera); espera = setTimeout(marcar, 250); };
  const comecar = () => {
    marcar();
    window.addEventListener("resize", depois);
    // o MathJax desenha as fórmulas depois do carregamento; os widgets reescrevem a saída
    window.MathJax?.startup?.promise?.then(marcar);
    const artigo = document.querySelector(".bd-article");
    if (artigo) new MutationObserver(depois).observe(artigo, { childList: true, subtree: true });
  };
  if (document.readyState === "complete") comecar();
  else window.addEventListener("load", comecar);
})();
