import { loadUniverse } from "./src/universe.js";
import { MarketSimulator } from "./src/market/simulator.js";
const u = loadUniverse();
const sim = new MarketSimulator(u.entries);
let t = performance.now(); sim.warm("2026-11-20"); console.log("warm ms", performance.now()-t);
t = performance.now(); let n=0; for (const e of u.entries) n += sim.dailyBarsSync(e.sym, "2026-11-20", 300).length; console.log("read ms", performance.now()-t, n);
for (const s of ["SPY","QQQ","AAPL","NVDA","TLT","SHY","GLD","BTC-USD","ETH-USD","IBIT","HYG","IEF"]) {
  const b = sim.dailyBarsSync(s, "2026-11-20", 800); const f=b[0]!, l=b[b.length-1]!;
  let mx=0, mn=1e18; for (const x of b) { mx=Math.max(mx,x.close); mn=Math.min(mn,x.close); }
  console.log(s, b.length, f.date, f.close.toFixed(2), l.date, l.close.toFixed(2), "min", mn.toFixed(2), "max", mx.toFixed(2), "vol$", (l.close*l.volume/1e6).toFixed(0)+"M");
}
const closes = u.entries.map(e => sim.dailyBarsSync(e.sym, "2026-11-20", 1)[0]!.close).sort((a,b)=>a-b);
console.log("price quantiles", [0,0.05,0.5,0.95,1].map(q=>closes[Math.floor(q*(closes.length-1))]!.toFixed(2)));
const sim2 = new MarketSimulator(u.entries); const a = sim2.dailyBarsSync("AAPL","2025-03-03",5); sim2.warm("2026-11-20"); 
console.log(JSON.stringify(a)===JSON.stringify(sim.dailyBarsSync("AAPL","2025-03-03",5)));
console.log(sim.intradayBarSync("AAPL", new Date("2026-11-20T17:00:00Z")), sim.dailyBarsSync("AAPL","2026-11-20",1));
// regimes
