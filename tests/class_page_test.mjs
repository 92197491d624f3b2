// class_page_test.mjs — make class-report's page in headless Chromium (playwright-core driving /usr/bin/chromium).
// flipkit tests/: check_class.sh makes the page from a graded made-up class and calls it; one PASS/FAIL
// line per check, then "N passed, N failed": the plots are drawn (their bars' pixels counted in a
// screenshot), and hostile names and source text are shown as text, with no script run.
//
// usage: node tests/class_page_test.mjs --modules DIR --chromium PATH --page class.html --shots DIR
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const opt = {};
for (let i = 2; i < process.argv.length; i += 2) opt[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const { chromium } = createRequire(resolve(opt.modules) + '/')('playwright-core');
let passed = 0, failed = 0;
const check = (ok, what) => {
    console.log(`${ok ? 'PASS' : 'FAIL'}: ${what}`);
    ok ? passed++ : failed++;
};
const HOSTILE = '<img src=x onerror=alert(1)>';

const browser = await chromium.launch({
    executablePath: opt.chromium,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
           '--no-first-run'],
});

// The fraction of a screenshot's pixels in the bars' colour (#1565c0), decoded by the browser itself.
async function bar_fraction(png) {
    const blank = await browser.newPage();
    const frac = await blank.evaluate(async (b64) => {
        const img = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
        const c = new OffscreenCanvas(img.width, img.height).getContext('2d');
        c.drawImage(img, 0, 0);
        const d = c.getImageData(0, 0, img.width, img.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4)
            if (Math.abs(d[i] - 0x15) + Math.abs(d[i + 1] - 0x65) + Math.abs(d[i + 2] - 0xc0) < 24) n++;
        return n / (d.length / 4);
    }, png.toString('base64'));
    await blank.close();
    return frac;
}

try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const events = [];
    page.on('dialog', (d) => { events.push(`dialog: ${d.message()}`); d.dismiss(); });
    page.on('pageerror', (e) => events.push(`page error: ${e.message}`));
    page.on('request', (r) => { if (!r.url().startsWith('file:')) events.push(`request: ${r.url()}`); });
    await page.goto(pathToFileURL(resolve(opt.page)).href);
    const plots = await page.locator('svg.hist').count();
    check(plots >= 11, `the score plots are there: ${plots} (the total and one per part, 11 or more)`);
    const bars = await page.locator('svg.hist rect.bin').count();
    check(bars >= plots, `every plot has a bar: ${bars} bars in ${plots} plots`);
    const first = await page.locator('svg.hist').first().screenshot({ path: join(opt.shots, 'total-plot.png') });
    const frac = await bar_fraction(first);
    check(frac > 0.03, `the total's histogram is drawn: ${(100 * frac).toFixed(1)}% of its pixels are bars (over 3%)`);
    const box = await page.locator('svg.hist').first().boundingBox();
    check(box && box.width > 200 && box.height > 100, `it has its size on the page: ${box && `${box.width}x${box.height}`}`);
    await page.screenshot({ path: join(opt.shots, 'class-page.png') });   // the top: the plots
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));

    const refused = await page.locator('.refused').textContent();
    check(refused.includes(HOSTILE) && refused.includes('$(touch x)'),
          `the refused names read as text: ${JSON.stringify(refused)}`);
    const images = await page.locator('img').count();
    check(images === 0, `no element was made from a student's text: ${images} img elements`);
    const sources = await page.locator('.side pre').allTextContents();
    check(sources.length > 0 && sources.some((s) => s.includes(`/* ${HOSTILE} $(touch x) */`)),
          `the side-by-side view shows the copy's comment as text (${sources.length} files shown)`);
    const marked = await page.locator('.side pre span[class^="m"]').count();
    check(marked > 0, `the common runs are marked in the side-by-side view: ${marked} lines`);
    const rows = await page.locator('table.cases tr').count();
    check(rows === 57, `the cases table has a row per case: ${rows - 1}`);
    check(events.length === 0, `no dialog, script error or request off the page: ${JSON.stringify(events)}`);
} catch (e) {
    check(false, `the page could not be checked: ${e.message}`);
} finally {
    await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
