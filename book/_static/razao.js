// A página de números: o filtro da tabela (diretiva {razao} de livro_ext/trava/razao_pagina.py).
(function () {
  var caixa = document.getElementById("razao-filtro");
  var linhas = document.querySelectorAll("#razao-tabela tbody tr");
  var conta = document.getElementById("razao-conta");
  caixa.addEventListener("input", function () {
    var q = caixa.value.toLowerCase().trim(), n = 0;
    linhas.forEach(function (tr) {
      var ok = !q || tr.textContent.toLowerCase().indexOf(q) >= 0;
      tr.style.display = ok ? "" : "none";
      if (ok) n++;
    });
    conta.textContent = n + (n === 1 ? " número" : " números");
  });
})();
