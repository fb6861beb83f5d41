var o=(e,t)=>d(e,"name",{value:t,configurable:!0});
  let f=o(()=>{x()},"g"),h=o(function(){},"k");
    `a
` + o(async()=>1,"z");
